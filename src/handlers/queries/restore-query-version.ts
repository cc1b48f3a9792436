import type { Handler } from '../types.js';
import { queryView } from '../data-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'queries'>;

export const restoreQueryVersion = (d: Deps): Handler<'restoreQueryVersion'> => async (req) =>
  ({ status: 200, body: queryView(await d.queries.restore(req.params.queryId, req.body, actorOf(req.ctx))) });
