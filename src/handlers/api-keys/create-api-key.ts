import type { Handler } from '../types.js';
import { actorOf, apiKeyView, principalOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'apiKeys'>;

export const createApiKey = (d: Deps): Handler<'createApiKey'> => async (req) => {
  const { row, token } = await d.apiKeys.create({
    name: req.body.name,
    scope: req.body.scope,
    ownerId: req.body.owner_id ?? principalOf(req.ctx).user.id,
    ...(req.body.expires_at ? { expiresAt: new Date(req.body.expires_at) } : {}),
  }, actorOf(req.ctx));
  return { status: 201, body: { key: apiKeyView(row), token } };
};
