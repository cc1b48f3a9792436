/**
 * The event stream of GET /events: the public change events (run.updated, report.updated,
 * channel.health) in seq order, each with its seq as the SSE id. A client that reconnects with
 * Last-Event-ID, to this or any other API process, first gets every public event it missed, in
 * order, once, from the store's history; when some of them are past the retention window it
 * gets a `reset` event instead (reload what you show, then carry on from here). A client that
 * falls too far behind is let go (its stream ends; it reconnects and resumes) so that one slow
 * reader cannot make the process hold events without bound. A stream carries only what its
 * reader may read: an event meant for one user (ChangeEvent.userId) goes to that user's streams.
 */
import { PUBLIC_EVENT_KINDS, type PublicEventKind } from './model.js';
import type { EventFeed } from './feed.js';
import type { EventHistory, SequencedEvent } from './ports.js';

/**
 * What a stream's iterator also offers: `follow(sink)` hands each event that comes while the stream
 * is caught up (nothing held back, nothing being read from the history, next() waiting) straight to
 * `sink`, in the fan-out turn that brings it, instead of through next(): a few promises per event
 * and stream, which with ten thousand streams are the microtasks after every turn of a fan-out,
 * outside its time slice. `sink` answers false when it does not take the event now (its
 * connection is full, or it stopped); that event and the ones after it then wait for next(), in
 * order, as without a sink.
 */
export interface FollowableEvents {
  follow(sink: (event: NumberedEvent) => boolean): void;
}

export interface NumberedEvent {
  event: PublicEventKind | 'reset';
  id: number;
  data: Record<string, unknown>;
}

/** Events a stream may hold for a client that reads slower than they come. */
export const MAX_BACKLOG = 10_000;
/** History rows read at a time while a client catches up. */
const PAGE = 500;

/** Who reads a stream. */
export interface StreamReader {
  userId: string;
}

const readable = (reader: StreamReader) => (e: SequencedEvent): boolean =>
  PUBLIC_EVENT_KINDS.has(e.type) && (e.userId === undefined || e.userId === reader.userId);
/**
 * One NumberedEvent per event for every stream: the same object reaches every stream's writer,
 * which serialises it once (respond.ts) however many streams carry it.
 */
const shared = new WeakMap<SequencedEvent, NumberedEvent>();
const numbered = (e: SequencedEvent): NumberedEvent => {
  let n = shared.get(e);
  if (!n) { n = { event: e.type as PublicEventKind, id: e.seq, data: e.data }; shared.set(e, n); }
  return n;
};

/**
 * Subscribes first (so nothing after the feed's position is missed), catches up from the history
 * when `lastEventId` is given, then follows the feed. Ending it (return(), the signal, or falling
 * too far behind) unsubscribes, also when it ends before its first event was read.
 */
export async function openLiveEvents(
  feed: EventFeed, history: EventHistory, reader: StreamReader, signal: AbortSignal, lastEventId?: number,
): Promise<AsyncIterableIterator<NumberedEvent> & FollowableEvents> {
  const mayRead = readable(reader);
  const backlog: NumberedEvent[] = [];
  let wake: (() => void) | undefined;
  let overflow = false;
  let ended = false;
  /** The writer's sink (follow()), and whether events may go to it now: next() waits, caught up, nothing held. */
  let sink: ((e: NumberedEvent) => boolean) | undefined;
  let live = false;
  /**
   * Whether the sink took `e`. A sink that throws (an event it cannot write) has not: the event
   * goes through next() like any other, so the writer fails on it there, as it would without a
   * sink, rather than the stream carrying on without it.
   */
  const handed = (e: SequencedEvent): boolean => {
    try { return sink!(numbered(e)); } catch { return false; }
  };
  const { position, unsubscribe } = await feed.subscribe((e) => {
    if (!mayRead(e) || overflow || ended) return;
    if (live && handed(e)) return;
    // Not taken: this one and every later one wait in order for next(), until it is caught up again.
    live = false;
    if (backlog.length >= MAX_BACKLOG) overflow = true;
    else backlog.push(numbered(e));
    wake?.();
  }, { fanOut: true });

  // What the client missed: history after lastEventId up to the position (the feed brings the rest).
  let cursor = position;
  let reset: NumberedEvent | undefined;
  if (lastEventId !== undefined && lastEventId !== position) {
    const { oldest } = await history.bounds();
    if (lastEventId > position || (oldest !== null && lastEventId < oldest - 1)) {
      reset = { event: 'reset', id: position, data: { reason: lastEventId > position ? 'unknown_event_id' : 'history_expired', latest: position } };
    } else {
      cursor = lastEventId;
    }
  }
  const page: NumberedEvent[] = [];
  const catchUp = async (): Promise<NumberedEvent | undefined> => {
    while (page.length === 0 && cursor < position) {
      const rows = await history.since(cursor, PAGE);
      if (rows.length === 0) { cursor = position; break; }
      for (const row of rows) if (row.seq <= position && mayRead(row)) page.push(numbered(row));
      cursor = Math.min(position, rows[rows.length - 1]!.seq);
    }
    return page.shift();
  };

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
  const iterator: AsyncIterableIterator<NumberedEvent> & FollowableEvents = {
    async next() {
      if (ended || signal.aborted) return end();
      if (reset) { const r = reset; reset = undefined; return { done: false, value: r }; }
      const missed = await catchUp();
      if (missed) return { done: false, value: missed };
      for (;;) {
        if (ended || signal.aborted) return end();
        const e = backlog.shift();
        if (e) return { done: false, value: e };
        if (overflow) return end();
        // Caught up: what comes now goes straight to the sink, if there is one, until it refuses one.
        live = sink !== undefined;
        await new Promise<void>((resolve) => { wake = resolve; });
        wake = undefined;
        live = false;
      }
    },
    return: end,
    follow(to) { sink = to; },
    [Symbol.asyncIterator]() { return iterator; },
  };
  return iterator;
}
