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
   * Publishes the events in their order, in one write to Redis (a pipeline: a relay pass or a
   * run's end has several, and each command of its own was a socket write of its own).
   * Rejects when any of them could not be published.
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
      let event: BusEvent;
      try {
        event = JSON.parse(message) as BusEvent;
      } catch (err) {
        deps.onError?.(err);
        return;
      }
      for (const listener of listeners) {
        try { listener(event); } catch (err) { deps.onError?.(err); }
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
      if (events.length <= 1) {
        if (events[0]) await deps.publisher.publish(channel, JSON.stringify(events[0]));
        return;
      }
      const pipeline = deps.publisher.pipeline();
      for (const event of events) pipeline.publish(channel, JSON.stringify(event));
      const results = await pipeline.exec();
      const failed = results?.find(([err]) => err);
      if (failed) throw failed[0]!;
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
