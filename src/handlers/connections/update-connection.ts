import type { Handler } from '../types.js';
import { connectionSettingsOf, connectionView } from '../data-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'connections'>;

export const updateConnection = (d: Deps): Handler<'updateConnection'> => async (req) => {
  const row = await d.connections.update(req.params.connectionId, {
    ...connectionSettingsOf(req.body), name: req.body.name, key: req.body.key, version: req.body.version,
  }, actorOf(req.ctx));
  return { status: 200, body: connectionView(row) };
};
