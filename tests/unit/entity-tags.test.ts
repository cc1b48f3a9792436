/**
 * Reads tagged by the store's row stamps (src/handlers/entity-tags.ts stampedRead, and the
 * handlers of connections, queries, channels, users and runs): the stamps are read before the
 * answer; a tag named by If-None-Match answers 304 without reading or building the answer; an
 * answer is tagged by the stamps only when it shows exactly the rows they name (a row that came
 * between the two reads and goes again later would otherwise bring the stamps back with the
 * answer still showing it). Answers kept by their tags (src/handlers/answer-cache.ts): the same
 * stamps send the same bytes again without reading the answer; moved stamps read it again; an
 * untagged answer is never kept; the cache holds to its budget, least recently used out first.
 */
import { entityTag, shownOne, shownPage, stampedRead, versionedRead } from '../../src/handlers/entity-tags.js';
import { createAnswerCache, ENTRY_OVERHEAD, jsonBytes, NO_ANSWER_CACHE } from '../../src/handlers/answer-cache.js';
import { listReports } from '../../src/handlers/reports/list-reports.js';
import { getConnection } from '../../src/handlers/connections/get-connection.js';
import { listRuns } from '../../src/handlers/runs/list-runs.js';
import { getChannel } from '../../src/handlers/channels/get-channel.js';
import type { RowStamps, Stamps } from '../../src/domain/reads/row-stamps.js';
import { decodeTimeCursor, encodeCursor } from '../../src/core/cursor.js';

const parts = ['op', 'view-1', 'user:u1:editor'];
const P1 = '00000000-0000-7000-8000-000000000001';
const P2 = '00000000-0000-7000-8000-000000000002';
const page = (ids: string[], more = false, marked = ids.map(() => false)): Stamps =>
  ({ text: ids.map((id) => `${id}/1/100`).join('\n') + (more ? '+' : ''), ids, marked, more });
const refusingRead = async (): Promise<never> => { throw new Error('the answer was read'); };
const body = (ids: string[], next?: string, managed: boolean[] = ids.map(() => false)) =>
  ({ items: ids.map((id, i) => (managed[i] ? { id, managed: { by: 'gitops' } } : { id })), ...(next ? { next_cursor: next } : {}) });

describe('stampedRead', () => {
  it('reads the stamps first, then the answer, and tags the answer with the stamps', async () => {
    const order: string[] = [];
    const res = await stampedRead(undefined, parts, async () => { order.push('stamps'); return page([P1]); },
      async () => { order.push('read'); return body([P1]); }, shownPage);
    expect(order).toEqual(['stamps', 'read']);
    expect(res).toEqual({ status: 200, headers: { ETag: entityTag([...parts, page([P1]).text]) }, body: body([P1]) });
  });

  it('answers 304 to its tag (weak, among others, or `*`) without reading the answer', async () => {
    const tag = entityTag([...parts, page([P1]).text]);
    for (const asked of [tag, tag.slice(2), `W/"x", ${tag}`, '*']) {
      let reads = 0;
      const read = async () => { reads += 1; return body([P1]); };
      expect(await stampedRead(asked, parts, async () => page([P1]), read, shownPage)).toEqual({ status: 304, headers: { ETag: tag } });
      expect(reads).toBe(0);
    }
  });

  it('answers 200 with the new tag when the stamps moved', async () => {
    const old = entityTag([...parts, page([P1]).text]);
    const moved: Stamps = { ...page([P1]), text: `${P1}/2/101` };
    const res = await stampedRead(old, parts, async () => moved, async () => body([P1]), shownPage);
    expect(res).toMatchObject({ status: 200, headers: { ETag: entityTag([...parts, moved.text]) } });
  });

  it('leaves untagged (for a content tag) an answer that shows other rows, marks or a next page than its stamps named', async () => {
    // A run queued between the two reads: the stamps name P1, the answer shows P2 and P1. Were it
    // tagged by the stamps, P2 leaving the list later would bring them back and answer 304 to a
    // copy that still shows it.
    const cases: Array<[Stamps, ReturnType<typeof body>]> = [
      [page([P1]), body([P2, P1])],
      [page([P1, P2]), body([P1])],
      [page([P1, P2]), body([P2, P1])],
      [page([P1]), body([P1], encodeCursor(['x', P1]))],
      [page([P1], true), body([P1])],
      [page([P1]), body([P1], undefined, [true])],
      [page([P1], false, [true]), body([P1])],
    ];
    for (const [stamps, answer] of cases) {
      const res = await stampedRead(undefined, parts, async () => stamps, async () => answer, shownPage);
      expect(res).toEqual({ status: 200, body: answer });
    }
    // A single resource whose configuration mark came between the two reads.
    const one = { text: `${P1}/1/100/`, ids: [P1], marked: [false], more: false };
    expect(await stampedRead(undefined, parts, async () => one, async () => ({ id: P1, managed: { by: 'import' } }), shownOne))
      .toEqual({ status: 200, body: { id: P1, managed: { by: 'import' } } });
    expect(await stampedRead(undefined, parts, async () => one, async () => ({ id: P1 }), shownOne))
      .toMatchObject({ status: 200, headers: { ETag: entityTag([...parts, one.text]) } });
  });

  it('with no stamps (no such row) lets the read answer: its 404, or, made meanwhile, the answer untagged', async () => {
    await expect(stampedRead('*', parts, async () => undefined, async () => { throw new Error('404'); }, shownOne)).rejects.toThrow('404');
    expect(await stampedRead('*', parts, async () => undefined, async () => ({ id: P2 }), shownOne)).toEqual({ status: 200, body: { id: P2 } });
  });
});

describe('a [time, id] cursor', () => {
  it('takes the time only as toISOString writes it', () => {
    const at = new Date('2026-11-30T01:02:03.456Z').toISOString();
    expect(decodeTimeCursor(encodeCursor([at, P1]))).toEqual({ at, id: P1 });
    for (const other of ['1', '2024-02-30T00:00:00.000Z', '2026-11-30T01:02:03.456', '2026-11-30T01:02:03.4567Z', '2026-11-30', '+002026-11-30T01:02:03.456Z', new Date(at).toString()]) {
      expect(() => decodeTimeCursor(encodeCursor([other, P1]))).toThrow('The cursor is not valid');
    }
  });
});

describe('the handlers on the 304 path', () => {
  const principal = { kind: 'api_key', user: { id: 'u1', role: 'editor' }, scope: 'write' };
  const refusing = () => { throw new Error('the answer was read'); };
  const stamps: RowStamps = {
    one: async (kind, id) => ({ text: `${kind}:${id}:1`, ids: [id], marked: [false], more: false }),
    page: async () => page([P1]),
    run: async (id) => ({ text: `run:${id}`, ids: [], marked: [], more: false }),
    runs: async (filter) => ({ ...page([P1]), text: `runs:${filter.status ?? ''}` }),
  };
  const request = (params: Record<string, string>, ifNoneMatch?: string, query: Record<string, unknown> = {}) =>
    ({ params, query, headers: ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}, ctx: { principal } }) as never;

  it('getConnection, getChannel and listRuns read nothing but the stamps to answer 304', async () => {
    const connections = { get: refusing } as never;
    const gitops = { managementOf: refusing, withManagement: refusing } as never;
    // Another tag: the answer is read (and here refused).
    await expect(getConnection({ connections, gitops, stamps, answers: NO_ANSWER_CACHE })(request({ connectionId: 'c1' }, 'W/"none"'))).rejects.toThrow('the answer was read');
    // The tag a 200 would carry (the operation, the view's revision, the caller, the id, the stamps), asked for.
    const connectionTag = entityTag(['getConnection', 'connection-1', 'api_key:u1:editor:write', 'c1', 'connection:c1:1']);
    expect(await getConnection({ connections, gitops, stamps, answers: NO_ANSWER_CACHE })(request({ connectionId: 'c1' }, connectionTag)))
      .toEqual({ status: 304, headers: { ETag: connectionTag } });

    const channels = { get: refusing, list: refusing, settingsView: refusing } as never;
    const plugins = { list: () => [{ id: 'webhook', version: '1.0.0', kind: 'channel' }], channel: () => undefined } as never;
    const channelTag = entityTag(['getChannel', 'channel-1', 'webhook@1.0.0', 'api_key:u1:editor:write', 'h1', 'channel:h1:1']);
    expect(await getChannel({ channels, gitops, stamps, plugins, answers: NO_ANSWER_CACHE })(request({ channelId: 'h1' }, channelTag)))
      .toEqual({ status: 304, headers: { ETag: channelTag } });

    const runs = { list: refusing } as never;
    const runsTag = entityTag(['listRuns', 'run-1', 'api_key:u1:editor:write', 50, undefined, 'success', undefined, undefined, 'runs:success']);
    expect(await listRuns({ runs, stamps, answers: NO_ANSWER_CACHE })(request({}, runsTag, { status: 'success' }))).toEqual({ status: 304, headers: { ETag: runsTag } });
  });
});

describe('answers kept by their tags', () => {
  const bytesOf = (b: unknown) => Buffer.from(`${JSON.stringify(b)}\n`);

  it('stampedRead: the first answer is read and kept as its bytes; the same stamps send them again without a read', async () => {
    const answers = createAnswerCache({ maxBytes: 1 << 20 });
    let reads = 0;
    const read = async () => { reads += 1; return body([P1]); };
    const tag = entityTag([...parts, page([P1]).text]);
    const first = await stampedRead(undefined, parts, async () => page([P1]), read, shownPage, answers);
    expect(first).toEqual({ status: 200, headers: { ETag: tag }, body: bytesOf(body([P1])), contentType: 'application/json; charset=utf-8' });
    const again = await stampedRead(undefined, parts, async () => page([P1]), async () => { throw new Error('the answer was read'); }, shownPage, answers);
    expect(again).toEqual(first);
    expect(reads).toBe(1);
    // A stale If-None-Match is answered from the kept bytes too; the current one is still 304.
    expect(await stampedRead('W/"old"', parts, async () => page([P1]), refusingRead, shownPage, answers)).toEqual(first);
    expect(await stampedRead(tag, parts, async () => page([P1]), refusingRead, shownPage, answers)).toEqual({ status: 304, headers: { ETag: tag } });
    // Another caller (another part of the tag) is its own answer: read.
    await expect(stampedRead(undefined, [...parts.slice(0, 2), 'user:u2:editor'], async () => page([P1]), refusingRead, shownPage, answers))
      .rejects.toThrow('the answer was read');
  });

  it('stampedRead: moved stamps read the answer again; an answer not tagged by its stamps is never kept', async () => {
    const answers = createAnswerCache({ maxBytes: 1 << 20 });
    await stampedRead(undefined, parts, async () => page([P1]), async () => body([P1]), shownPage, answers);
    const moved: Stamps = { ...page([P1]), text: `${P1}/2/101` };
    const fresh = await stampedRead(undefined, parts, async () => moved, async () => body([P1], undefined, [false]), shownPage, answers);
    expect(fresh).toMatchObject({ status: 200, headers: { ETag: entityTag([...parts, moved.text]) } });
    // Stamps naming P1, an answer showing P2 and P1: untagged, unkept, read every time.
    const mismatched = page([P1, P2]);
    expect(await stampedRead(undefined, parts, async () => mismatched, async () => body([P2, P1]), shownPage, answers)).toEqual({ status: 200, body: body([P2, P1]) });
    await expect(stampedRead(undefined, parts, async () => mismatched, refusingRead, shownPage, answers)).rejects.toThrow('the answer was read');
  });

  it('versionedRead: versions first when an answer may be kept; the kept bytes for the same versions; without a cache and a tag, one read only', async () => {
    const answers = createAnswerCache({ maxBytes: 1 << 20 });
    const tagOf = (v: string) => entityTag(['listReports', v]);
    const calls: string[] = [];
    const versions = async () => { calls.push('versions'); return 'v1'; };
    const read = async () => { calls.push('read'); return { body: { items: [{ id: P1 }] }, versions: 'v1' }; };
    const first = await versionedRead(undefined, tagOf, versions, read, answers);
    expect(calls).toEqual(['versions', 'read']);
    expect(first).toEqual({ status: 200, headers: { ETag: tagOf('v1') }, body: bytesOf({ items: [{ id: P1 }] }), contentType: 'application/json; charset=utf-8' });
    calls.length = 0;
    expect(await versionedRead(undefined, tagOf, versions, read, answers)).toEqual(first);
    expect(calls).toEqual(['versions']);
    // Kept under the versions the read's own rows carried: a change between the two reads is
    // kept under the new versions, never under the old.
    calls.length = 0;
    const racing = async () => { calls.push('read'); return { body: { items: [{ id: P2 }] }, versions: 'v3' }; };
    expect(await versionedRead(undefined, tagOf, async () => 'v2', racing, answers)).toMatchObject({ headers: { ETag: tagOf('v3') } });
    await expect(versionedRead(undefined, tagOf, async () => 'v2', async () => { throw new Error('the answer was read'); }, answers)).rejects.toThrow('the answer was read');
    expect((await versionedRead(undefined, tagOf, async () => 'v3', async () => { throw new Error('the answer was read'); }, answers) as { body: Buffer }).body.toString())
      .toBe(`${JSON.stringify({ items: [{ id: P2 }] })}\n`);
    // Nothing kept, nothing asked: the one statement that reads the rows with their versions.
    calls.length = 0;
    expect(await versionedRead(undefined, tagOf, versions, read, NO_ANSWER_CACHE)).toEqual({ status: 200, headers: { ETag: tagOf('v1') }, body: { items: [{ id: P1 }] } });
    expect(calls).toEqual(['read']);
    // No such resource: its read answers (404).
    await expect(versionedRead(undefined, tagOf, async () => undefined, async () => { throw new Error('404'); }, answers)).rejects.toThrow('404');
  });

  it('versionedRead: requests missing the same new tag at once wait for the one making it, and none of them reads again', async () => {
    const seen: string[] = [];
    const answers = createAnswerCache({ maxBytes: 1 << 20, observe: (o) => seen.push(o) });
    const tagOf = (v: string) => entityTag(['listReports', v]);
    let reads = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    const read = async () => { reads += 1; await held; return { body: { items: [{ id: P1 }] }, versions: 'v1' }; };
    const all = Array.from({ length: 5 }, () => versionedRead(undefined, tagOf, async () => 'v1', read, answers));
    await new Promise((r) => setImmediate(r));
    expect(reads).toBe(1);
    release();
    const answered = await Promise.all(all);
    expect(reads).toBe(1);
    for (const a of answered) expect(a).toEqual({ status: 200, headers: { ETag: tagOf('v1') }, body: bytesOf({ items: [{ id: P1 }] }), contentType: 'application/json; charset=utf-8' });
    // Five misses, four of them answered by the making (svc_answer_cache_total's `shared`).
    expect(seen.filter((o) => o === 'miss')).toHaveLength(5);
    expect(seen.filter((o) => o === 'shared')).toHaveLength(4);
    // Another tag is made on its own, and a making that is over leaves nothing behind.
    expect(answers.making(tagOf('v2'))).toBeUndefined();
    answers.made(tagOf('v2'), undefined);
    expect(answers.making(tagOf('v2'))).toBeUndefined();
    answers.made(tagOf('v2'), undefined);
  });

  it('versionedRead: when the one making the tag ends under another (rows moved on) or fails, the waiting requests read their own', async () => {
    const answers = createAnswerCache({ maxBytes: 1 << 20 });
    const tagOf = (v: string) => entityTag(['listReports', v]);
    let release!: () => void;
    let held = new Promise<void>((r) => { release = r; });
    let reads = 0;
    // The first read finds the rows moved on (v2): its answer goes under v2, not under the v1 the others wait for.
    const moving = async () => {
      reads += 1;
      const mine = reads;
      await held;
      return mine === 1 ? { body: { items: [{ id: P2 }] }, versions: 'v2' } : { body: { items: [{ id: P1 }] }, versions: 'v1' };
    };
    const first = versionedRead(undefined, tagOf, async () => 'v1', moving, answers);
    const waiting = versionedRead(undefined, tagOf, async () => 'v1', moving, answers);
    await new Promise((r) => setImmediate(r));
    // Only the maker reads while it makes: the other waits.
    expect(reads).toBe(1);
    release();
    expect(await first).toEqual({ status: 200, headers: { ETag: tagOf('v2') }, body: bytesOf({ items: [{ id: P2 }] }), contentType: 'application/json; charset=utf-8' });
    // The waiter read its own, after the maker ended under v2: the rows of v1, under v1.
    expect(await waiting).toEqual({ status: 200, headers: { ETag: tagOf('v1') }, body: bytesOf({ items: [{ id: P1 }] }), contentType: 'application/json; charset=utf-8' });
    expect(reads).toBe(2);
    // A failed making: the waiting request reads (and answers) by itself; the failure is the maker's alone.
    held = new Promise<void>((r) => { release = r; });
    let attempt = 0;
    const failingOnce = async () => {
      attempt += 1;
      const mine = attempt;
      await held;
      if (mine === 1) throw new Error('store away');
      return { body: { items: [] }, versions: 'v9' };
    };
    const failing = versionedRead(undefined, tagOf, async () => 'v9', failingOnce, answers);
    const after = versionedRead(undefined, tagOf, async () => 'v9', failingOnce, answers);
    await new Promise((r) => setImmediate(r));
    expect(attempt).toBe(1);
    release();
    await expect(failing).rejects.toThrow('store away');
    expect(await after).toEqual({ status: 200, headers: { ETag: tagOf('v9') }, body: bytesOf({ items: [] }), contentType: 'application/json; charset=utf-8' });
    expect(attempt).toBe(2);
    expect(answers.making(tagOf('v9'))).toBeUndefined();
    answers.made(tagOf('v9'), undefined);
  });

  it('stampedRead: requests missing the same stamps at once share one read; an answer not shown as stamped is never shared', async () => {
    const answers = createAnswerCache({ maxBytes: 1 << 20 });
    let reads = 0;
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    const read = async () => { reads += 1; await held; return body([P1]); };
    const all = Array.from({ length: 4 }, () => stampedRead(undefined, parts, async () => page([P1]), read, shownPage, answers));
    await new Promise((r) => setImmediate(r));
    release();
    const answered = await Promise.all(all);
    expect(reads).toBe(1);
    expect(new Set(answered.map((a) => (a as { body: Buffer }).body.toString()))).toEqual(new Set([bytesOf(body([P1])).toString()]));
    // Stamps naming P1 and P2, the first read showing P2 and P1: its answer is untagged, so the other reads its own.
    let n = 0;
    const mismatched = page([P1, P2]);
    const reorder = async () => { n += 1; return n === 1 ? body([P2, P1]) : body([P1, P2]); };
    const [a, b] = await Promise.all([
      stampedRead(undefined, parts, async () => mismatched, reorder, shownPage, answers),
      stampedRead(undefined, parts, async () => mismatched, reorder, shownPage, answers),
    ]);
    expect(a).toEqual({ status: 200, body: body([P2, P1]) });
    expect(b).toMatchObject({ status: 200, headers: { ETag: entityTag([...parts, mismatched.text]) } });
    expect(n).toBe(2);
  });

  it('listReports sends the kept page for unchanged versions without reading the reports', async () => {
    const answers = createAnswerCache({ maxBytes: 1 << 20 });
    let pages = 0;
    const reports = {
      pageVersions: async () => 'r1/1',
      page: async () => { pages += 1; return { page: { items: [] }, versions: 'r1/1' }; },
    } as never;
    const req = { params: {}, query: {}, headers: {}, ctx: { principal: { kind: 'api_key', user: { id: 'u1', role: 'editor' }, scope: 'read' } } } as never;
    const first = await listReports({ reports, answers })(req);
    const again = await listReports({ reports, answers })(req);
    expect(again).toEqual(first);
    expect((again as { body: Buffer }).body.toString()).toBe('{"items":[]}\n');
    expect(pages).toBe(1);
  });

  it('holds to its budget, counting each entry\'s tag and own cost, least recently used out first, and keeps no entry costing over an eighth of it', () => {
    const seen: string[] = [];
    const cost = 100 + 2 + ENTRY_OVERHEAD; // 100 bytes under a one-character tag
    const answers = createAnswerCache({ maxBytes: 8 * cost + 10, observe: (o) => seen.push(o) });
    expect(answers.keeps).toBe(true);
    for (const t of ['a', 'b', 'c', 'd']) answers.put(t, Buffer.alloc(100, t));
    expect(answers.size).toBe(4 * cost);
    expect(answers.get('a')?.toString()).toBe('a'.repeat(100)); // a is now the most recent
    for (const t of ['e', 'f', 'g', 'h', 'i']) answers.put(t, Buffer.alloc(100, t));
    expect(answers.size).toBe(8 * cost);
    expect(answers.get('b')).toBeUndefined();
    expect(answers.get('a')).toBeDefined();
    answers.put('big', Buffer.alloc(cost - 2 * 3 - ENTRY_OVERHEAD + 20));
    expect(answers.get('big')).toBeUndefined();
    answers.put('a', Buffer.alloc(50, 'x'));
    expect(answers.size).toBe(7 * cost + 50 + 2 + ENTRY_OVERHEAD);
    expect(seen).toEqual(['hit', 'miss', 'hit', 'miss']);
    expect(createAnswerCache({ maxBytes: 0 })).toBe(NO_ANSWER_CACHE);
    expect(NO_ANSWER_CACHE.keeps).toBe(false);
  });

  it('keeps answers in memory of their own, never a slice that would hold a shared 8 KiB block', () => {
    const answers = createAnswerCache({ maxBytes: 1 << 20 });
    const pooled = Buffer.from('{"items":[]}\n');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length); // Node's pool
    answers.put('t', pooled);
    const kept = answers.get('t')!;
    expect(kept.toString()).toBe('{"items":[]}\n');
    expect(kept.buffer.byteLength).toBe(kept.length);
    const made = jsonBytes({ items: [] });
    expect(made.toString()).toBe('{"items":[]}\n');
    expect(made.buffer.byteLength).toBe(made.length);
  });
});
