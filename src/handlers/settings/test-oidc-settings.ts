import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'oidc'>;

export const testOidcSettings = (d: Deps): Handler<'testOidcSettings'> => async (req) => {
  const r = await d.oidc.test(req.body?.issuer_url);
  return {
    status: 200,
    body: {
      issuer: r.issuer, authorization_endpoint: r.authorizationEndpoint, token_endpoint: r.tokenEndpoint, jwks_uri: r.jwksUri,
      userinfo_endpoint: r.userinfoEndpoint, scopes_supported: r.scopesSupported, elapsed_ms: r.elapsedMs,
    },
  };
};
