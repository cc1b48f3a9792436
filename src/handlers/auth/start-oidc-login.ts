import type { Handler } from '../types.js';
import { oidcFlowCookie } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'oidc'>;

export const startOidcLogin = (d: Deps): Handler<'startOidcLogin'> => async (req) => {
  const { location, flowToken, maxAgeSeconds } = await d.oidc.startLogin(req.query.return_to);
  return { status: 302, headers: { location, 'cache-control': 'no-store' }, cookies: [oidcFlowCookie(flowToken, maxAgeSeconds)] };
};
