/**
 * The feed's fan-out to event streams: an event taken reaches the fanned-out listeners in turns of
 * FAN_OUT_BATCH, each turn in its own turn of the event loop (so the request that caused it is
 * answered first), every listener gets every event after its position once and in order, and the
 * immediate listeners (cancellations, held principals) still get it at once. Streams share one
 * serialisation of an event.
 */
import { FAN_OUT_BATCH, FAN_OUT_SLICE_MS } from '../../src/domain/events/feed.js';
import { quietFeed } from '../support/event-feed.js';
import { openLiveEvents } from '../../src/domain/events/live-stream.js';
import { encodeEvent } from '../../src/http/respond.js';

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * A feed whose turns are cut by the batch only: a test that counts turns must not depend on how
 * fast the machine calls listeners (a loaded CI machine fitted 105 of 250 into a 2 ms slice).
 * The slice itself is tested with listeners that each take a whole slice.
 */
function makeFeed({ sliceMs }: { sliceMs?: number } = { sliceMs: Number.POSITIVE_INFINITY }) {
  return quietFeed(sliceMs === undefined ? {} : { sliceMs });
}

describe('fan-out to event streams', () => {
  it('calls immediate listeners at once and fanned-out ones in later turns, a batch per turn', async () => {
    const { feed, event } = makeFeed();
    const immediate: number[] = [];
    await feed.subscribe((e) => immediate.push(e.seq));
    const count = FAN_OUT_BATCH * 2 + 10;
    const got: number[][] = Array.from({ length: count }, () => []);
    for (let i = 0; i < count; i += 1) await feed.subscribe((e) => got[i]!.push(e.seq), { fanOut: true });
    feed.offer([event(1)]);
    expect(immediate).toEqual([1]);
    expect(got.filter((g) => g.length > 0)).toHaveLength(0);
    await nextTurn();
    expect(got.filter((g) => g.length > 0)).toHaveLength(FAN_OUT_BATCH);
    await nextTurn();
    expect(got.filter((g) => g.length > 0)).toHaveLength(FAN_OUT_BATCH * 2);
    await nextTurn();
    expect(got.every((g) => g.length === 1)).toBe(true);
    await feed.close();
  });

  it('ends a turn early once it took FAN_OUT_SLICE_MS: slow listeners are spread over more turns, each called once', async () => {
    const { feed, event } = makeFeed({}); // the feed's own slice, FAN_OUT_SLICE_MS
    const count = 40;
    const calls: number[] = Array.from({ length: count }, () => 0);
    // Each listener holds the loop for a whole slice: one listener per turn.
    const slow = (i: number) => () => { calls[i]! += 1; const until = performance.now() + FAN_OUT_SLICE_MS; while (performance.now() < until) { /* busy */ } };
    for (let i = 0; i < count; i += 1) await feed.subscribe(slow(i), { fanOut: true });
    feed.offer([event(1)]);
    const perTurn: number[] = [];
    for (let turn = 0; turn < count * 2 && calls.some((c) => c === 0); turn += 1) {
      const before = calls.reduce((a, b) => a + b, 0);
      await nextTurn();
      perTurn.push(calls.reduce((a, b) => a + b, 0) - before);
    }
    expect(calls.every((c) => c === 1)).toBe(true);
    expect(Math.max(...perTurn)).toBe(1);
    await feed.close();
  });

  it('gives every listener every event once and in order, also when events come while one is fanning out', async () => {
    const { feed, event } = makeFeed();
    const count = FAN_OUT_BATCH + 3;
    const got: number[][] = Array.from({ length: count }, () => []);
    for (let i = 0; i < count; i += 1) await feed.subscribe((e) => got[i]!.push(e.seq), { fanOut: true });
    feed.offer([event(1), event(2)]);
    await nextTurn();
    feed.offer([event(3)]);
    for (let i = 0; i < 10; i += 1) await nextTurn();
    for (const g of got) expect(g).toEqual([1, 2, 3]);
    await feed.close();
  });

  it('gives a listener that subscribes while an event fans out only what comes after its position', async () => {
    const { feed, event } = makeFeed();
    for (let i = 0; i < FAN_OUT_BATCH * 2; i += 1) await feed.subscribe(() => undefined, { fanOut: true });
    feed.offer([event(1)]);
    const late: number[] = [];
    const { position } = await feed.subscribe((e) => late.push(e.seq), { fanOut: true });
    expect(position).toBe(1);
    feed.offer([event(2)]);
    for (let i = 0; i < 10; i += 1) await nextTurn();
    expect(late).toEqual([2]);
    await feed.close();
  });

  it('skips a listener that unsubscribed before its turn', async () => {
    const { feed, event } = makeFeed();
    for (let i = 0; i < FAN_OUT_BATCH; i += 1) await feed.subscribe(() => undefined, { fanOut: true });
    const gone: number[] = [];
    const { unsubscribe } = await feed.subscribe((e) => gone.push(e.seq), { fanOut: true });
    feed.offer([event(1)]);
    await unsubscribe();
    for (let i = 0; i < 5; i += 1) await nextTurn();
    expect(gone).toEqual([]);
    await feed.close();
  });

  it('hands every stream the same event object, serialised once', async () => {
    const { feed, event, history } = makeFeed();
    const signal = new AbortController().signal;
    const a = await openLiveEvents(feed, history, { userId: 'u1' }, signal);
    const b = await openLiveEvents(feed, history, { userId: 'u2' }, signal);
    feed.offer([event(1)]);
    const [ea, eb] = await Promise.all([a.next(), b.next()]);
    expect(ea.value).toBe(eb.value);
    expect(encodeEvent(ea.value!)).toBe(encodeEvent(eb.value!));
    expect(encodeEvent(ea.value!).toString('utf8')).toBe('event: report.updated\nid: 1\ndata: {"id":"r1","change":"paused"}\n\n');
    await a.return!();
    await b.return!();
    await feed.close();
  });
});
