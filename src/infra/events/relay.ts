/**
 * The outbox relay, one per process: woken by the store (LISTEN herald_events, which the outbox
 * table's trigger notifies when a transaction that wrote events commits), and every few seconds
 * in case a notification was missed, it gives seq numbers to new events (under one lock for the
 * store, so relays of several processes take turns) and publishes every sequenced, unpublished
 * event on the event bus in seq order, then marks them published. When Redis is away the events
 * stay unpublished and go out once it answers: delayed, never lost.
 */
import type { Sql } from '../db/client.js';
import type { EventLog, SequencedRow } from '../db/stores/events-repo.js';

const BATCH = 1000;

export interface RelayDeps {
  sql: Sql;
  log: EventLog;
  publish(events: SequencedRow[]): Promise<void>;
  onError(err: unknown): void;
  /** The safety net's interval (default 2 s). */
  everyMs?: number;
}

export interface Relay {
  start(): Promise<void>;
  /** Runs a pass now (and again after it, if woken meanwhile). */
  wake(): void;
  stop(): Promise<void>;
}

export function createRelay(deps: RelayDeps): Relay {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;

  const pass = async (): Promise<void> => {
    for (;;) {
      const sequenced = await deps.log.sequence(BATCH);
      for (;;) {
        const rows = await deps.log.unpublished(BATCH);
        if (rows.length === 0) break;
        await deps.publish(rows);
        await deps.log.markPublished(rows[rows.length - 1]!.seq, new Date());
        if (rows.length < BATCH) break;
      }
      if (sequenced < BATCH) return;
    }
  };

  const wake = (): void => {
    if (stopped) return;
    if (running) { again = true; return; }
    running = (async () => {
      do {
        again = false;
        try {
          await pass();
        } catch (err) {
          deps.onError(err);
          return; // the next wake or the timer tries again
        }
      } while (again && !stopped);
    })().finally(() => { running = undefined; });
  };

  return {
    async start() {
      try {
        const listening = await deps.sql.listen('herald_events', () => wake(), () => wake());
        unlisten = () => listening.unlisten();
      } catch (err) {
        deps.onError(err); // the timer still relays
      }
      timer = setInterval(wake, deps.everyMs ?? 2000);
      timer.unref?.();
      wake();
    },
    wake,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await unlisten?.().catch(() => undefined);
      await running;
    },
  };
}
