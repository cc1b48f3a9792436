import type { Handler } from '../types.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'connections'>;

export const deleteConnection = (d: Deps): Handler<'deleteConnection'> => async (req) => {
  await d.connections.delete(req.params.connectionId, actorOf(req.ctx));
  return { status: 204, body: undefined };
};
