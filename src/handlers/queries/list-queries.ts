import type { Handler } from '../types.js';
import { queryView } from '../data-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'queries' | 'gitops'>;

export const listQueries = (d: Deps): Handler<'listQueries'> => async (req) => {
  const p = await d.queries.list(pageQuery(req.query));
  return { status: 200, body: { ...p, items: await d.gitops.withManagement('query', p.items.map(queryView)) } };
};
