import type { Handler } from '../types.js';
import { connectionSettingsOf } from '../data-views.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'connections'>;

export const testConnectionSettings = (d: Deps): Handler<'testConnectionSettings'> => async (req) => {
  const r = await d.connections.testSettings({ ...connectionSettingsOf(req.body), connectionId: req.body.connection_id });
  return { status: 200, body: { ok: true, server_version: r.serverVersion, round_trip_ms: r.roundTripMs } };
};
