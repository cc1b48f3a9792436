import type { Handler } from '../types.js';
import { queryVersionView } from '../data-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'queries'>;

export const getQueryVersion = (d: Deps): Handler<'getQueryVersion'> => async (req) =>
  ({ status: 200, body: queryVersionView(await d.queries.version(req.params.queryId, req.params.number)) });
