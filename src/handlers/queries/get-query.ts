import type { Handler } from '../types.js';
import { queryView } from '../data-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'queries' | 'gitops'>;

export const getQuery = (d: Deps): Handler<'getQuery'> => async (req) => {
  const q = await d.queries.get(req.params.queryId);
  return { status: 200, body: { ...queryView(q), ...(await d.gitops.managementOf('query', q.id)) } };
};
