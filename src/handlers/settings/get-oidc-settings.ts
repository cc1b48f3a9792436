import type { Handler } from '../types.js';
import { oidcSettingsView } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'oidc'>;

export const getOidcSettings = (d: Deps): Handler<'getOidcSettings'> => async () =>
  ({ status: 200, body: oidcSettingsView(await d.oidc.get(), d.oidc.redirectUri) });
