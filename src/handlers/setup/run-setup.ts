import type { Handler } from '../types.js';
import { meView, sessionCookies } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'setup'>;

export const runSetup = (d: Deps): Handler<'runSetup'> => async (req) => {
  const { user, session, device } = await d.setup.setup(req.body, requestMeta(req.ctx));
  return {
    status: 201,
    body: { status: 'signed_in', user: meView(user), csrf_token: session.csrfToken },
    cookies: sessionCookies(session, device),
  };
};
