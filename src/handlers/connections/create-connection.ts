import type { Handler } from '../types.js';
import { connectionSettingsOf, connectionView } from '../data-views.js';
import { actorOf } from '../identity-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'connections'>;

export const createConnection = (d: Deps): Handler<'createConnection'> => async (req) =>
  ({ status: 201, body: connectionView(await d.connections.create({ ...connectionSettingsOf(req.body), name: req.body.name, key: req.body.key }, actorOf(req.ctx))) });
