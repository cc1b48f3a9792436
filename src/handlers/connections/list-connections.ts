import type { Handler } from '../types.js';
import { connectionView } from '../data-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'connections' | 'gitops'>;

export const listConnections = (d: Deps): Handler<'listConnections'> => async (req) => {
  const p = await d.connections.list(pageQuery(req.query));
  return { status: 200, body: { ...p, items: await d.gitops.withManagement('connection', p.items.map(connectionView)) } };
};
