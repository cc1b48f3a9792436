import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'connections'>;

export const testConnection = (d: Deps): Handler<'testConnection'> => async (req) => {
  const r = await d.connections.test(req.params.connectionId);
  return { status: 200, body: { ok: true, server_version: r.serverVersion, round_trip_ms: r.roundTripMs } };
};
