import type { Handler } from '../types.js';
import { connectionView } from '../data-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'connections'>;

export const getConnection = (d: Deps): Handler<'getConnection'> => async (req) =>
  ({ status: 200, body: connectionView(await d.connections.get(req.params.connectionId)) });
