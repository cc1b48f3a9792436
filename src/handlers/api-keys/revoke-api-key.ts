import type { Handler } from '../types.js';
import { actorOf, apiKeyView } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'apiKeys'>;

export const revokeApiKey = (d: Deps): Handler<'revokeApiKey'> => async (req) =>
  ({ status: 200, body: apiKeyView(await d.apiKeys.revoke(req.params.apiKeyId, actorOf(req.ctx))) });
