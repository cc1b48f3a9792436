/**
 * Compile-time proof that the event stream's `Event` (openapi.yaml) is a union a client narrows
 * on `event`, each kind with its own data; `npm run typecheck` checks this file.
 */
import type { components, operations } from '../../src/generated/openapi.js';

type Event = components['schemas']['Event'];

/** A client's handler: the kind decides what data holds. */
export function summarize(e: Event): string {
  switch (e.event) {
    case 'run.updated': return `${e.data.id} ${e.data.status} ${e.data.finished_at ?? ''} ${e.data.error_code ?? ''}`;
    case 'report.updated': return `${e.data.id} ${e.data.change} ${e.data.last_run?.status ?? ''}`;
    case 'channel.health': return `${e.data.id} ${e.data.previous} → ${e.data.health}`;
    case 'notification.created': return `${e.data.id} ${e.data.kind} (${e.data.unread_count} unread)`;
    case 'shutdown': return 'reconnect';
    case 'reset': return `reload from ${e.data.latest} (${e.data.reason})`;
  }
}

// @ts-expect-error a run.updated event's data has no health
export const runHealth = (e: Event) => (e.event === 'run.updated' ? e.data.health : undefined);
// @ts-expect-error shutdown carries no id
export const shutdownId = (e: Event) => (e.event === 'shutdown' ? e.id : undefined);
// @ts-expect-error not a kind the stream sends
export const unknownKind: Event = { event: 'run.cancel', id: '1', data: { id: 'x' } };

// GET /events declares one Event per text/event-stream message.
export const streamed: operations['streamEvents']['responses'][200]['content']['text/event-stream'] = {
  event: 'channel.health', id: '7', data: { id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70', health: 'failing', previous: 'healthy' },
};
