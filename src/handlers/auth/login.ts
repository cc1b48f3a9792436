import type { Handler } from '../types.js';
import { meView, sessionCookies } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'signIn'>;

export const login = (d: Deps): Handler<'login'> => async (req) => {
  const { user, session, device } = await d.signIn.login(req.body, requestMeta(req.ctx), {
    sessionToken: req.ctx.sessionToken, deviceTokens: req.ctx.deviceTokens,
  });
  return {
    status: 200,
    body: { status: 'signed_in', user: meView(user), csrf_token: session.csrfToken },
    cookies: sessionCookies(session, device),
  };
};
