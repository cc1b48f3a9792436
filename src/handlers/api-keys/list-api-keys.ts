import type { Handler } from '../types.js';
import { apiKeyView } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'apiKeys'>;

export const listApiKeys = (d: Deps): Handler<'listApiKeys'> => async (req) => {
  const p = await d.apiKeys.list({ ...pageQuery(req.query), ...(req.query.owner_id ? { ownerId: req.query.owner_id } : {}) });
  return { status: 200, body: { ...p, items: p.items.map(apiKeyView) } };
};
