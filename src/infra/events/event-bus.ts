/**
 * The event bus: every change a process makes is published on Redis pub/sub, so every API
 * instance can tell its own subscribers (server-sent events, caches). Delivery is best effort
 * and at most once, as pub/sub is: the store stays the truth, events only say "look again".
 * The subscriber connection is opened on the first subscription only.
 */
import type { Redis } from 'ioredis';

export interface BusEvent {
  type: string;
  /** JSON-serialisable facts: ids and states, never secrets. */
  data: Record<string, unknown>;
}

export interface EventBus {
  publish(event: BusEvent): Promise<void>;
  /**
   * Publishes the events in their order as one message (a JSON array): a relay pass or a run's
   * end has several, and a scheduler's batch a thousand. One PUBLISH each was a command to build,
   * a message for Redis to fan out and one for every subscribing process to take in, per event.
   * Rejects when they could not be published.
   */
  publishAll(events: readonly BusEvent[]): Promise<void>;
  /** Calls `listener` for every event published by any process; returns the unsubscribe. */
  subscribe(listener: (event: BusEvent) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export function createEventBus(deps: {
  publisher: Redis; prefix: string; connectSubscriber: () => Redis; onError?: (err: unknown) => void;
}): EventBus {
  const channel = `${deps.prefix}:events`;
  const listeners = new Set<(event: BusEvent) => void>();
  let subscriber: Redis | undefined;
  const ensureSubscribed = async () => {
    if (subscriber) return;
    const s = deps.connectSubscriber();
    subscriber = s;
    // Our own resubscription after a reconnect, with its failure handled: ioredis's automatic
    // one (autoResubscribe) leaves a rejection nobody handles when the connection drops again
    // at that moment.
    s.options.autoResubscribe = false;
    let subscribed = false;
    s.on('ready', () => {
      if (subscribed) s.subscribe(channel).catch((err: unknown) => deps.onError?.(err));
    });
    s.on('message', (_channel: string, message: string) => {
      let parsed: BusEvent | BusEvent[];
      try {
        parsed = JSON.parse(message) as BusEvent | BusEvent[];
      } catch (err) {
        deps.onError?.(err);
        return;
      }
      // A message is one event (publish) or several in their order (publishAll).
      for (const event of Array.isArray(parsed) ? parsed : [parsed]) {
        for (const listener of listeners) {
          try { listener(event); } catch (err) { deps.onError?.(err); }
        }
      }
    });
    await s.subscribe(channel);
    subscribed = true;
  };
  return {
    async publish(event) {
      await deps.publisher.publish(channel, JSON.stringify(event));
    },
    async publishAll(events) {
      if (events.length === 0) return;
      await deps.publisher.publish(channel, JSON.stringify(events.length === 1 ? events[0] : events));
    },
    async subscribe(listener) {
      listeners.add(listener);
      await ensureSubscribed();
      return async () => { listeners.delete(listener); };
    },
    async close() {
      listeners.clear();
      subscriber?.disconnect();
      subscriber = undefined;
    },
  };
}
