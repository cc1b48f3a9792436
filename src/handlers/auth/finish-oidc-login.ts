import type { Handler } from '../types.js';
import { oidcFlowCookie, sessionCookies } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { browserProof, requestMeta } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'oidc'>;

export const finishOidcLogin = (d: Deps): Handler<'finishOidcLogin'> => async (req) => {
  const { location, signedIn } = await d.oidc.finishLogin(
    { ...req.query }, req.ctx.oidcFlowToken, requestMeta(req.ctx), browserProof(req.ctx),
  );
  const cookies = [oidcFlowCookie('', 0), ...(signedIn ? sessionCookies(signedIn.session) : [])];
  return { status: 302, headers: { location, 'cache-control': 'no-store' }, cookies };
};
