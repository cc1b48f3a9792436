import type { Handler } from '../types.js';
import { queryVersionView } from '../data-views.js';
import type { ApiServices } from '../services.js';
import { pageQuery } from '../request-helpers.js';

type Deps = Pick<ApiServices, 'queries'>;

export const listQueryVersions = (d: Deps): Handler<'listQueryVersions'> => async (req) => {
  const p = await d.queries.versions(req.params.queryId, pageQuery(req.query));
  return { status: 200, body: { ...p, items: p.items.map(queryVersionView) } };
};
