/**
 * The outbox relay, one per process. A unit of work writes its events and usually numbers them
 * itself, in its last statement (events-repo `numberWritten`) and its process publishes them through `publishNumbered` right
 * after the commit. What it could not number (another transaction held the numbering lock), and
 * what was written outside a unit of work, the relays handle: woken by the store (LISTEN
 * herald_events, which the outbox table's trigger notifies when a transaction commits events
 * still without a number), and every few seconds
 * in case a notification was missed, it gives seq numbers to new events and claims them for
 * publishing (one update per row, under one lock for the store, so relays of several processes
 * take turns), and publishes them on the event bus in seq order; what could not be published is
 * given back. When Redis is away the events stay unpublished and go out once it answers:
 * delayed, never lost.
 */
import type { Sql } from '../db/client.js';
import type { EventLog, SequencedRow } from '../db/stores/events-repo.js';

const BATCH = 1000;

export interface RelayDeps {
  sql: Sql;
  /**
   * The session connection LISTEN runs on (SVC_DATABASE_DIRECT_URL): through a pooler in
   * transaction mode a LISTEN lands on a shared server connection and its notifications are lost.
   * `sql` (the store) unless given.
   */
  listenSql?: Sql;
  /**
   * Told once whether the relay's own test notification (sent through `sql` at start) came back
   * on the LISTEN connection within `probeMs`: when it did not, events go out by the timer only.
   */
  onHearing?(heard: boolean, waitedMs: number): void;
  probeMs?: number;
  log: EventLog;
  publish(events: SequencedRow[]): Promise<void>;
  onError(err: unknown): void;
  /** The safety net's interval (default 2 s). */
  everyMs?: number;
  /** The least time between the starts of two passes (default LINGER_MS). */
  lingerMs?: number;
}

/**
 * A pass woken within this time of the last one's start waits for its end (a quiet relay passes at
 * once). Busy, a wake came with nearly every commit of a run's start or end, and each pass was a
 * statement of the store and a message on Redis for one or two events; lingering, a pass takes
 * what a few milliseconds of commits wrote, as a producer's linger batches its sends.
 */
export const LINGER_MS = 20;

export interface Relay {
  start(): Promise<void>;
  /** Runs a pass now (and again after it, if woken meanwhile). */
  wake(): void;
  /**
   * Publishes events a writer numbered and claimed in its own transaction, just committed; when
   * publishing fails they are given back, and a pass publishes them.
   */
  publishNumbered(events: SequencedRow[]): void;
  stop(): Promise<void>;
}

export function createRelay(deps: RelayDeps): Relay {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let probe: { token: string; heard(): void } | undefined;
  const lingerMs = deps.lingerMs ?? LINGER_MS;
  /** When the last pass started (performance.now()). */
  let lastStart = -Infinity;
  /** Ends the linger at once (stop()). */
  let endLinger: (() => void) | undefined;
  const linger = (ms: number): Promise<void> => new Promise((resolve) => {
    const t = setTimeout(() => { endLinger = undefined; resolve(); }, ms);
    t.unref?.(); // as the safety net's timer: a lingering relay keeps no process alive
    endLinger = () => { clearTimeout(t); endLinger = undefined; resolve(); };
  });

  /**
   * One statement numbers and claims, then the events go out; when publishing fails they are
   * given back for the next pass. (A process that dies between the two leaves its claim
   * unpublished on Redis; every feed reads the store's history every few seconds, so its
   * listeners still get those events, only later.)
   */
  const pass = async (): Promise<void> => {
    for (;;) {
      const claimed = await deps.log.claim(BATCH);
      if (claimed.length === 0) return;
      try {
        await deps.publish(claimed);
      } catch (err) {
        await deps.log.release(claimed.map((e) => e.seq)).catch(deps.onError);
        throw err;
      }
      if (claimed.length < BATCH) return;
    }
  };

  const wake = (): void => {
    if (stopped) return;
    if (running) { again = true; return; }
    running = (async () => {
      try {
        do {
          // Woken while lingering: this pass takes what those wakes were for (stop() ends the
          // linger early: the pass still runs, as a pass under way when it was called does).
          const wait = lastStart + lingerMs - performance.now();
          if (wait > 0) await linger(wait);
          again = false;
          lastStart = performance.now();
          try {
            await pass();
          } catch (err) {
            deps.onError(err);
            return; // the next wake or the timer tries again
          }
        } while (again && !stopped);
      } finally {
        // In the same step as the last look at `again` (a .finally() on the promise would run a
        // microtask later, and a wake between the two would be lost until the timer's).
        running = undefined;
      }
    })();
  };

  /**
   * One notification through the store, which the LISTEN connection should hear: it does not
   * when that connection goes through a pooler in transaction mode (the LISTEN ran on a server
   * connection the pooler then gave to others). Told once; a store that does not answer now is
   * no verdict (nothing is told).
   */
  const checkHearing = async (told: (heard: boolean, waitedMs: number) => void): Promise<void> => {
    const waitMs = deps.probeMs ?? 5000;
    const token = `probe:${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
    let timeout: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      probe = { token, heard: () => resolve(true) };
      timeout = setTimeout(() => resolve(false), waitMs);
      timeout.unref?.();
    });
    try {
      await deps.sql`select pg_notify('herald_events', ${token})`;
    } catch {
      clearTimeout(timeout);
      probe = undefined;
      return;
    }
    const ok = await heard;
    clearTimeout(timeout);
    probe = undefined;
    if (!stopped) told(ok, waitMs);
  };

  return {
    async start() {
      let listening = false;
      try {
        const l = await (deps.listenSql ?? deps.sql).listen('herald_events', (payload) => {
          if (probe && payload === probe.token) probe.heard();
          wake();
        }, () => wake());
        unlisten = () => l.unlisten();
        listening = true;
      } catch (err) {
        deps.onError(err); // the timer still relays
      }
      timer = setInterval(wake, deps.everyMs ?? 2000);
      timer.unref?.();
      wake();
      if (listening && deps.onHearing) void checkHearing(deps.onHearing);
    },
    wake,
    publishNumbered(events) {
      if (events.length === 0) return;
      // Given back when they cannot go out (stopping, or publishing failed): a relay (this one
      // once woken, or another process's) publishes them.
      const giveBack = () => deps.log.release(events.map((e) => e.seq)).then(() => wake(), deps.onError);
      if (stopped) { void giveBack(); return; }
      deps.publish(events).catch((err: unknown) => {
        deps.onError(err);
        void giveBack();
      });
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      endLinger?.();
      await unlisten?.().catch(() => undefined);
      await running;
    },
  };
}
