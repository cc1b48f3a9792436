/**
 * A process's feed of numbered events: every event in seq order, exactly once, to every local
 * listener (event streams, the worker's cancel listener). Events come from the bus as the relays
 * publish them; a gap (a message Redis lost, or relays of two processes publishing out of turn)
 * is filled from the store's history, once for the process, and a poll of the history every few
 * seconds delivers what the bus did not bring at all (Redis away): events are late, never lost.
 */
import type { EventBusSource, EventHistory, SequencedEvent } from './ports.js';

const PAGE = 500;
/** How long a gap may stay open before the history is read to fill it. */
const GAP_WAIT_MS = 50;
/**
 * Fanned-out listeners called per turn of the event loop: thousands of event streams get an event
 * in turns of this many, so that the request that caused it (and every other) is answered between
 * the turns instead of after the last stream.
 */
export const FAN_OUT_BATCH = 250;
/**
 * And at most this long: a turn ends early once it has taken this many milliseconds, so that a
 * request's store round trip waits behind at most one short turn, however slow each write is
 * (a stream's write costs ~40 µs on the 2-core machine: 250 of them held the loop ~10 ms, and a
 * POST with three round trips waited behind three such turns).
 */
export const FAN_OUT_SLICE_MS = 2;

export interface SubscribeOptions {
  /**
   * Called in turns of FAN_OUT_BATCH listeners (fewer when FAN_OUT_SLICE_MS is up), each turn in its own turn of the event loop
   * (setImmediate), rather than at once: for the many (event streams). Each listener still gets
   * every event after its position once, in order. Unset: at once, as the event is taken (for
   * the few whose reaction must not wait: a cancellation, dropping held principals).
   */
  fanOut?: boolean;
}

export interface EventFeed {
  /**
   * Calls `listener` for every event after the feed's position at the time of subscribing, in
   * order; answers that position and the unsubscribe.
   */
  subscribe(listener: (event: SequencedEvent) => void, options?: SubscribeOptions): Promise<{ position: number; unsubscribe(): Promise<void> }>;
  /** Events this process's relay just published: taken at once (the bus's copy is then a repeat, dropped). */
  offer(events: readonly SequencedEvent[]): void;
  close(): Promise<void>;
}

export function createEventFeed(deps: {
  bus: EventBusSource; history: EventHistory; onError(err: unknown): void; pollMs?: number; gapWaitMs?: number;
  /** How long a fan-out turn may take (FAN_OUT_SLICE_MS; tests that count turns lift it). */
  sliceMs?: number;
}): EventFeed {
  const sliceMs = deps.sliceMs ?? FAN_OUT_SLICE_MS;
  const listeners = new Set<(event: SequencedEvent) => void>();
  /** The fanned-out listeners, each with the position it subscribed at (it gets only what comes after). */
  const fanned = new Map<(event: SequencedEvent) => void, number>();
  /** Events taken but not yet given to every fanned-out listener, in seq order. */
  const fanQueue: SequencedEvent[] = [];
  let fanning = false;
  const pending = new Map<number, SequencedEvent>();
  let position: number | undefined;
  let started: Promise<void> | undefined;
  let unsubscribeBus: (() => Promise<void>) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let filling: Promise<void> | undefined;
  let fillAgain = false;
  let closed = false;

  /**
   * One event at a time to the fanned-out listeners, FAN_OUT_BATCH per turn of the event loop (or
   * as many as FAN_OUT_SLICE_MS allows); the
   * next event starts once the previous reached all of them, so each gets them in order.
   */
  const fanOut = (): void => {
    if (fanning || fanQueue.length === 0 || closed) return;
    fanning = true;
    const event = fanQueue.shift()!;
    const targets = [...fanned.keys()];
    let i = 0;
    const turn = (): void => {
      if (closed) { fanning = false; return; }
      const end = Math.min(targets.length, i + FAN_OUT_BATCH);
      const until = performance.now() + sliceMs;
      for (; i < end; i += 1) {
        const listener = targets[i]!;
        const from = fanned.get(listener);
        // Unsubscribed meanwhile, or subscribed after this event was taken (its position covers it).
        if (from === undefined || event.seq <= from) continue;
        try { listener(event); } catch (err) { deps.onError(err); }
        if (performance.now() >= until) { i += 1; break; }
      }
      if (i < targets.length) { setImmediate(turn); return; }
      fanning = false;
      fanOut();
    };
    setImmediate(turn);
  };
  const deliver = (event: SequencedEvent): void => {
    position = event.seq;
    for (const listener of listeners) {
      try { listener(event); } catch (err) { deps.onError(err); }
    }
    if (fanned.size > 0) { fanQueue.push(event); fanOut(); }
  };
  const drain = (): void => {
    for (;;) {
      const next = position === undefined ? undefined : pending.get(position + 1);
      if (!next) break;
      pending.delete(next.seq);
      deliver(next);
    }
    if (position !== undefined) for (const seq of pending.keys()) if (seq <= position) pending.delete(seq);
  };
  /** Reads what came after the position from the history (a gap, or the bus being silent). */
  const fill = (): void => {
    if (position === undefined || closed) return;
    if (filling) { fillAgain = true; return; }
    filling = (async () => {
      do {
        fillAgain = false;
        try {
          for (;;) {
            const rows = await deps.history.since(position!, PAGE);
            for (const row of rows) if (row.seq === position! + 1) { pending.delete(row.seq); deliver(row); drain(); }
            if (rows.length < PAGE) break;
          }
        } catch (err) {
          deps.onError(err);
          return;
        }
      } while (fillAgain && !closed);
    })().finally(() => { filling = undefined; });
  };
  const onBus = (e: { seq?: number; type: string; data: Record<string, unknown>; userId?: string }): void => {
    if (typeof e.seq !== 'number' || closed) return;
    const event: SequencedEvent = { seq: e.seq, type: e.type, data: e.data, ...(typeof e.userId === 'string' ? { userId: e.userId } : {}) };
    if (position === undefined) { pending.set(event.seq, event); return; }
    if (event.seq <= position) return;
    if (event.seq === position + 1) { deliver(event); drain(); return; }
    pending.set(event.seq, event);
    fillSoon();
  };
  /**
   * A gap: usually the missing events are a moment behind (writers of one process finish their
   * commits out of turn; two processes' messages cross on Redis), so the history is read only if
   * the gap is still open a little later.
   */
  let gapTimer: NodeJS.Timeout | undefined;
  const fillSoon = (): void => {
    if (gapTimer || closed) return;
    gapTimer = setTimeout(() => {
      gapTimer = undefined;
      if (pending.size > 0) fill();
    }, deps.gapWaitMs ?? GAP_WAIT_MS);
    gapTimer.unref?.();
  };
  const start = (): Promise<void> => {
    started ??= (async () => {
      unsubscribeBus = await deps.bus.subscribe(onBus);
      position = (await deps.history.bounds()).latest;
      drain();
      if (pending.size > 0) fill();
      timer = setInterval(fill, deps.pollMs ?? 2000);
      timer.unref?.();
    })().catch((err: unknown) => { started = undefined; throw err; });
    return started;
  };

  return {
    async subscribe(listener, options = {}) {
      await start();
      if (options.fanOut) {
        fanned.set(listener, position!);
        return { position: position!, unsubscribe: async () => { fanned.delete(listener); } };
      }
      listeners.add(listener);
      return { position: position!, unsubscribe: async () => { listeners.delete(listener); } };
    },
    offer(events) {
      for (const e of events) onBus(e);
    },
    async close() {
      closed = true;
      listeners.clear();
      fanned.clear();
      fanQueue.length = 0;
      if (timer) clearInterval(timer);
      if (gapTimer) clearTimeout(gapTimer);
      await filling;
      await unsubscribeBus?.();
    },
  };
}
