import type { Handler } from '../types.js';
import { actorOf, oidcSettingsView } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'oidc'>;

export const replaceOidcSettings = (d: Deps): Handler<'replaceOidcSettings'> => async (req) => {
  const b = req.body;
  const secret = b.client_secret;
  const settings = await d.oidc.replace({
    version: b.version, enabled: b.enabled, issuerUrl: b.issuer_url, clientId: b.client_id,
    // {configured: true} or an omitted field keeps the stored secret.
    clientSecret: secret === undefined || (typeof secret === 'object' && secret !== null) ? undefined : secret,
    scopes: b.scopes, roleClaim: b.role_claim, roleMapping: b.role_mapping, allowedDomains: b.allowed_domains,
    createUsers: b.create_users, defaultRole: b.default_role, buttonLabel: b.button_label,
  }, actorOf(req.ctx));
  return { status: 200, body: oidcSettingsView(settings, d.oidc.redirectUri) };
};
