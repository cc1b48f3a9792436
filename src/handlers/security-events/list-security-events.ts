import type { Handler } from '../types.js';
import { securityEventView } from '../identity-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'securityEvents'>;

export const listSecurityEvents = (d: Deps): Handler<'listSecurityEvents'> => async (req) => {
  const p = await d.securityEvents.list({
    ...pageQuery(req.query),
    ...(req.query.type ? { type: req.query.type } : {}),
    ...(req.query.user_id ? { userId: req.query.user_id } : {}),
  });
  return { status: 200, body: { ...p, items: p.items.map(securityEventView) } };
};
