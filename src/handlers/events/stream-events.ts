import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';
import { openLiveEvents } from '../../domain/events/live-stream.js';

type Deps = Pick<ApiServices, 'eventSource'>;

/** How long a client waits before reconnecting after the stream ends. */
const RECONNECT_MS = 3000;

/** GET /events: run.updated, report.updated and channel.health from every process, as server-sent events (openapi.yaml: Event). */
export const streamEvents = (d: Deps): Handler<'streamEvents'> => async (req) =>
  ({ status: 200, events: await openLiveEvents(d.eventSource, req.ctx.signal), retryMs: RECONNECT_MS });
