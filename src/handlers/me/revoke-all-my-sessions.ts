import type { Handler } from '../types.js';
import { actorOf, clearedCookies, sessionOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'sessions'>;

export const revokeAllMySessions = (d: Deps): Handler<'revokeAllMySessions'> => async (req) => {
  await d.sessions.revokeAll(sessionOf(req.ctx).userId, actorOf(req.ctx));
  return { status: 204, body: undefined, cookies: clearedCookies };
};
