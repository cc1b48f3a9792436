import type { Handler } from '../types.js';
import { connectionView } from '../data-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'connections' | 'gitops'>;

export const getConnection = (d: Deps): Handler<'getConnection'> => async (req) => {
  const c = await d.connections.get(req.params.connectionId);
  return { status: 200, body: { ...connectionView(c), ...(await d.gitops.managementOf('connection', c.id)) } };
};
