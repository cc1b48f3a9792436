import type { Handler } from '../types.js';
import { clearedCookies, sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'signIn'>;

export const logout = (d: Deps): Handler<'logout'> => async (req) => {
  const s = sessionOf(req.ctx);
  await d.signIn.logout(s.userId, s.sessionId, s.token, requestMeta(req.ctx));
  return { status: 204, body: undefined, cookies: clearedCookies };
};
