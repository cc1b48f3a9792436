/**
 * An event feed for tests of what reads it (fan-out, live streams, the stream writer): no bus, an
 * empty history, no polling; events are given with `feed.offer([event(seq)])`. `sliceMs` as the
 * feed's (tests that count turns pass Infinity: a loaded machine fits fewer calls in a slice).
 */
import { createEventFeed } from '../../src/domain/events/feed.js';
import type { EventHistory, SequencedEvent } from '../../src/domain/events/ports.js';

export function quietFeed(options: { sliceMs?: number } = {}) {
  const history: EventHistory = { since: async () => [], bounds: async () => ({ latest: 0, oldest: null }) };
  const feed = createEventFeed({
    bus: { subscribe: async () => async () => undefined },
    history,
    onError: (err) => { throw err; },
    pollMs: 3_600_000,
    ...(options.sliceMs !== undefined ? { sliceMs: options.sliceMs } : {}),
  });
  const event = (seq: number, data: Record<string, unknown> = { id: `r${seq}`, change: 'paused' }): SequencedEvent =>
    ({ seq, type: 'report.updated', data });
  return { feed, history, event };
}
