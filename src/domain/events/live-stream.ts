/**
 * The live event stream of GET /events: every public change event (run.updated,
 * report.updated, channel.health) from every process, as it arrives on the event bus, numbered in order.
 * A client that falls too far behind is let go (its stream ends; it reconnects and reads the
 * state again) so that one slow reader cannot make the process hold events without bound.
 */
import { PUBLIC_EVENT_KINDS, type ChangeEvent } from './model.js';

export interface ChangeEventSource {
  /** Calls `listener` for every event any process publishes; answers the unsubscribe. */
  subscribe(listener: (event: { type: string; data: Record<string, unknown> }) => void): Promise<() => Promise<void>>;
}

export interface NumberedEvent {
  event: ChangeEvent['type'];
  id: number;
  data: Record<string, unknown>;
}

/** Events a stream may hold for a client that reads slower than they come. */
export const MAX_BACKLOG = 10_000;

/**
 * Subscribes first (so nothing published after this resolves is missed), then answers the
 * stream. Ending it (return(), the signal, or falling too far behind) unsubscribes, also when it
 * ends before its first event was read.
 */
export async function openLiveEvents(source: ChangeEventSource, signal: AbortSignal): Promise<AsyncIterableIterator<NumberedEvent>> {
  const backlog: NumberedEvent[] = [];
  let wake: (() => void) | undefined;
  let overflow = false;
  let ended = false;
  let next = 1;
  const unsubscribe = await source.subscribe((e) => {
    if (!PUBLIC_EVENT_KINDS.has(e.type) || overflow || ended) return;
    if (backlog.length >= MAX_BACKLOG) overflow = true;
    else backlog.push({ event: e.type as ChangeEvent['type'], id: next++, data: e.data });
    wake?.();
  });
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort, { once: true });
  const end = async (): Promise<IteratorResult<NumberedEvent>> => {
    if (!ended) {
      ended = true;
      backlog.length = 0;
      signal.removeEventListener('abort', onAbort);
      wake?.();
      await unsubscribe();
    }
    return { done: true, value: undefined };
  };
  const iterator: AsyncIterableIterator<NumberedEvent> = {
    async next() {
      for (;;) {
        if (ended || signal.aborted) return end();
        const e = backlog.shift();
        if (e) return { done: false, value: e };
        if (overflow) return end();
        await new Promise<void>((resolve) => { wake = resolve; });
        wake = undefined;
      }
    },
    return: end,
    [Symbol.asyncIterator]() { return iterator; },
  };
  return iterator;
}
