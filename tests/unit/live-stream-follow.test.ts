/**
 * A live stream's direct path (follow): while the stream is caught up and its reader waits in
 * next(), each event goes straight to the writer's sink in the fan-out turn that brings it; events
 * that come while the reader is busy, and any the sink refuses (its connection is full), wait for
 * next() in order, and the sink takes over again once next() has caught up. No event is lost,
 * repeated or reordered between the two paths.
 */
import { openLiveEvents, type NumberedEvent } from '../../src/domain/events/live-stream.js';
import { quietFeed } from '../support/event-feed.js';

const nextTurn = () => new Promise<void>((r) => setImmediate(r));
const turns = async (n = 5) => { for (let i = 0; i < n; i += 1) await nextTurn(); };

async function open() {
  const { feed, history, event } = quietFeed({ sliceMs: Number.POSITIVE_INFINITY });
  const stream = await openLiveEvents(feed, history, { userId: 'u1' }, new AbortController().signal);
  return { feed, event, stream };
}

/** next() as a promise whose settling the test can see without awaiting it. */
function watch(p: Promise<IteratorResult<NumberedEvent>>) {
  const state: { value?: IteratorResult<NumberedEvent> } = {};
  void p.then((v) => { state.value = v; });
  return state;
}

describe('live stream: the direct path to the writer', () => {
  it('hands events to the sink while next() waits caught up, and next() keeps waiting', async () => {
    const { feed, event, stream } = await open();
    const sunk: number[] = [];
    stream.follow((e) => { sunk.push(e.id); return true; });
    const pending = watch(stream.next());
    await turns();
    feed.offer([event(1), event(2)]);
    feed.offer([event(3)]);
    await turns();
    expect(sunk).toEqual([1, 2, 3]);
    expect(pending.value).toBeUndefined();
    await stream.return!();
    await turns();
    expect(pending.value).toEqual({ done: true, value: undefined });
    await feed.close();
  });

  it('gives what came while the reader was busy to next(), in order, then the sink takes over', async () => {
    const { feed, event, stream } = await open();
    const sunk: number[] = [];
    stream.follow((e) => { sunk.push(e.id); return true; });
    // No next() waits yet: the reader is busy writing, so these are held for it.
    feed.offer([event(1), event(2)]);
    await turns();
    expect(sunk).toEqual([]);
    expect((await stream.next()).value?.id).toBe(1);
    expect((await stream.next()).value?.id).toBe(2);
    const pending = watch(stream.next());
    await turns();
    feed.offer([event(3)]);
    await turns();
    expect(sunk).toEqual([3]);
    expect(pending.value).toBeUndefined();
    await stream.return!();
    await feed.close();
  });

  it('sends a refused event and every later one through next(), in order, then uses the sink again', async () => {
    const { feed, event, stream } = await open();
    const sunk: number[] = [];
    let full = false;
    stream.follow((e) => {
      if (full) return false;
      sunk.push(e.id);
      if (e.id === 1) full = true; // the connection filled up with this one
      return true;
    });
    const first = watch(stream.next());
    await turns();
    feed.offer([event(1), event(2), event(3)]);
    await turns();
    expect(sunk).toEqual([1]);
    expect(first.value?.value?.id).toBe(2);
    full = false; // drained: but 3 is already held, so it must come through next() before 4
    feed.offer([event(4)]);
    await turns();
    expect(sunk).toEqual([1]);
    expect((await stream.next()).value?.id).toBe(3);
    expect((await stream.next()).value?.id).toBe(4);
    const pending = watch(stream.next());
    await turns();
    feed.offer([event(5)]);
    await turns();
    expect(sunk).toEqual([1, 5]);
    expect(pending.value).toBeUndefined();
    await stream.return!();
    await feed.close();
  });

  it('hands an event the sink throws on to next(), so the writer fails on it instead of skipping it', async () => {
    const { feed, event, stream } = await open();
    const sunk: number[] = [];
    stream.follow((e) => {
      if (e.id === 2) throw new TypeError('Do not know how to serialize a BigInt');
      sunk.push(e.id);
      return true;
    });
    const pending = watch(stream.next());
    await turns();
    feed.offer([event(1), event(2), event(3)]);
    await turns();
    expect(sunk).toEqual([1]);
    expect(pending.value?.value?.id).toBe(2);
    expect((await stream.next()).value?.id).toBe(3);
    await stream.return!();
    await feed.close();
  });
});
