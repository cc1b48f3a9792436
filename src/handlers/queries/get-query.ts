import type { Handler } from '../types.js';
import { queryView } from '../data-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'queries'>;

export const getQuery = (d: Deps): Handler<'getQuery'> => async (req) =>
  ({ status: 200, body: queryView(await d.queries.get(req.params.queryId)) });
