import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';
import { openLiveEvents } from '../../domain/events/live-stream.js';
import { principalOf } from '../identity-views.js';

type Deps = Pick<ApiServices, 'eventFeed' | 'eventHistory'>;

/** How long a client waits before reconnecting after the stream ends. */
const RECONNECT_MS = 3000;

/**
 * GET /events: the public change events the caller may read, in outbox order (openapi.yaml: Event); with
 * Last-Event-ID, every event after it first (or a reset when they are no longer kept).
 */
export const streamEvents = (d: Deps): Handler<'streamEvents'> => async (req) => {
  const last = req.headers['last-event-id'];
  const lastEventId = last !== undefined && /^[0-9]{1,18}$/.test(last) ? Number(last) : undefined;
  return { status: 200, events: await openLiveEvents(d.eventFeed, d.eventHistory, { userId: principalOf(req.ctx).user.id }, req.ctx.signal, lastEventId), retryMs: RECONNECT_MS };
};
