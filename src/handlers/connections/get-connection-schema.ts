import type { Handler } from '../types.js';
import { schemaView } from '../data-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'connections'>;

export const getConnectionSchema = (d: Deps): Handler<'getConnectionSchema'> => async (req) =>
  ({ status: 200, body: schemaView(await d.connections.schema(req.params.connectionId)) });
