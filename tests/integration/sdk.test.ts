/**
 * The SDK (sdk/) against a real Herald on a real socket, through a loopback proxy that records
 * every request and injects faults: typed calls, HeraldError with its code, field errors and
 * request id, pagination across three pages, retries honouring Retry-After on 429 and 503 and
 * after a reset connection, writes retried only with an Idempotency-Key, which runReport sends
 * and reuses across its retries.
 */
import { createClient, HeraldError } from '../../sdk/src/index.js';
import { startSdkHerald, type SdkHerald } from '../support/sdk-herald.js';

let t: SdkHerald;
const reportIds: string[] = [];

beforeAll(async () => {
  t = await startSdkHerald();
  for (let i = 1; i <= 5; i += 1) reportIds.push(await t.report(`Report ${i}`, `select ${i} as n`));
});
afterAll(async () => { await t.stop(); });

const attempts = (method: string, path: RegExp, since: number) =>
  t.proxy.seen.slice(since).filter((s) => s.method === method && path.test(s.path));

describe('call', () => {
  it('answers the typed 2xx body of an operation', async () => {
    const report = await t.client.call('getReport', { path: { reportId: reportIds[0]! } });
    expect(report).toMatchObject({ id: reportIds[0], title: 'Report 1' });
    const me = await t.client.call('getMe');
    expect(me.email).toBe('ada@example.com');
  });

  it('throws HeraldError with the code, the field errors and the request id of a 422', async () => {
    const err = await t.client.call('createReport', { body: { title: '', query_id: 'not-a-uuid' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HeraldError);
    const e = err as HeraldError;
    expect(e).toMatchObject({ status: 422, code: 'validation.failed', name: 'HeraldError' });
    expect(e.errors.map((f) => f.field).sort()).toEqual(expect.arrayContaining(['query_id']));
    expect(e.errors.every((f) => typeof f.code === 'string')).toBe(true);
    expect(e.requestId).toMatch(/\S/);
    expect(e.requestId).toBe(e.problem?.request_id);
    expect(e.message).toMatch(/^validation\.failed/);
  });

  it('throws HeraldError not_found with the request id on a 404', async () => {
    const err = await t.client.call('getRun', { path: { runId: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HeraldError);
    expect(err).toMatchObject({ status: 404, code: 'not_found', errors: [] });
    expect((err as HeraldError).requestId).toMatch(/\S/);
  });

  it('throws auth.unauthenticated for a wrong key, and never puts the key in the error', async () => {
    const bad = createClient({ baseUrl: t.proxy.url, apiKey: 'hk_wrong_key_0000000000000000', retry: false });
    const err = await bad.call('listReports').catch((e: unknown) => e) as HeraldError;
    expect(err).toMatchObject({ status: 401, code: 'auth.unauthenticated' });
    expect(JSON.stringify({ ...err, message: err.message })).not.toContain('hk_wrong_key');
  });

  it('gives the raw openapi-fetch client, typed by path', async () => {
    const { data, response } = await t.client.raw.GET('/api/v1/reports/{reportId}', { params: { path: { reportId: reportIds[1]! } } });
    expect(response.status).toBe(200);
    expect(data?.title).toBe('Report 2');
  });
});

describe('paginate', () => {
  it('iterates every item of a cursor-paginated list, following next_cursor across three pages', async () => {
    const since = t.proxy.seen.length;
    const ids: string[] = [];
    for await (const report of t.client.paginate('listReports', { query: { limit: 2 } })) ids.push(report.id);
    expect(ids.sort()).toEqual([...reportIds].sort());
    const pages = attempts('GET', /^\/api\/v1\/reports$/, since);
    expect(pages).toHaveLength(3);
  });
});

describe('retries', () => {
  it('retries a GET answered 429, waiting at least Retry-After each time', async () => {
    const since = t.proxy.seen.length;
    t.proxy.inject({ method: 'GET', path: /^\/api\/v1\/reports$/, answer: 429, retryAfter: '1', times: 2 });
    const page = await t.client.call('listReports', { query: { limit: 1 } });
    expect(page.items).toHaveLength(1);
    const seen = attempts('GET', /^\/api\/v1\/reports$/, since);
    expect(seen.map((s) => s.outcome)).toEqual([429, 429, 'forwarded']);
    // Retry-After: 1 — each retry came a second or more after the answer before it (the clock's
    // granularity aside); no upper bound is asserted.
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(950);
  });

  it('retries a GET answered 503 with Retry-After as an HTTP date', async () => {
    const since = t.proxy.seen.length;
    const at = new Date(Date.now() + 2000).toUTCString();
    t.proxy.inject({ method: 'GET', path: /^\/api\/v1\/reports\/[^/]+$/, answer: 503, retryAfter: at });
    const report = await t.client.call('getReport', { path: { reportId: reportIds[2]! } });
    expect(report.title).toBe('Report 3');
    const seen = attempts('GET', /^\/api\/v1\/reports\/[^/]+$/, since);
    expect(seen.map((s) => s.outcome)).toEqual([503, 'forwarded']);
    // An HTTP date has whole seconds: it was more than a second ahead, and the retry waited for it
    // (a loose lower bound; the request's own travel time is taken off it).
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(500);
  });

  it('retries a GET whose connection was reset', async () => {
    const since = t.proxy.seen.length;
    t.proxy.inject({ method: 'GET', path: /^\/api\/v1\/me$/, answer: 'reset' });
    expect((await t.client.call('getMe')).email).toBe('ada@example.com');
    expect(attempts('GET', /^\/api\/v1\/me$/, since).map((s) => s.outcome)).toEqual(['reset', 'forwarded']);
  });

  it('gives up after the retries, throwing the last answer with its Retry-After', async () => {
    const since = t.proxy.seen.length;
    t.proxy.inject({ method: 'GET', path: /^\/api\/v1\/runs$/, answer: 503, retryAfter: '0', times: 4 });
    const err = await t.client.call('listRuns').catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, code: 'unavailable', retryAfterSeconds: 0 });
    expect(attempts('GET', /^\/api\/v1\/runs$/, since)).toHaveLength(4);
  });

  it('does not retry a write without an Idempotency-Key', async () => {
    const since = t.proxy.seen.length;
    t.proxy.inject({ method: 'POST', path: /^\/api\/v1\/queries$/, answer: 503, retryAfter: '1' });
    const err = await t.client.call('createQuery', { body: { name: 'Once', connection_id: t.connectionId, sql: 'select 1' } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, code: 'unavailable', retryAfterSeconds: 1 });
    expect(attempts('POST', /^\/api\/v1\/queries$/, since)).toHaveLength(1);
  });

  it('runReport sends an Idempotency-Key and the same one on each retry: one run is made', async () => {
    const since = t.proxy.seen.length;
    const runPath = /^\/api\/v1\/reports\/[^/]+\/run$/;
    t.proxy.inject({ method: 'POST', path: runPath, answer: 503, retryAfter: '1' });
    t.proxy.inject({ method: 'POST', path: runPath, answer: 'reset' });
    const run = await t.client.runReport(reportIds[3]!, { deliver: false });
    expect(run).toMatchObject({ report_id: reportIds[3], trigger: 'manual', deliver: false });
    const seen = attempts('POST', runPath, since);
    expect(seen.map((s) => s.outcome)).toEqual([503, 'reset', 'forwarded']);
    const keys = new Set(seen.map((s) => s.idempotencyKey));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    const runs = await t.client.call('listRuns', { query: { report_id: reportIds[3]! } });
    expect(runs.items.map((r) => r.id)).toEqual([run.id]);
  });

  it('runReport with a given key answers the same run for a repeat', async () => {
    const first = await t.client.runReport(reportIds[4]!, { deliver: false, idempotencyKey: 'deploy-42' });
    const again = await t.client.runReport(reportIds[4]!, { deliver: false, idempotencyKey: 'deploy-42' });
    expect(again.id).toBe(first.id);
  });
});

describe('etags', () => {
  it('asks again with If-None-Match and answers a 304 from what it kept, as the 200 it stands for; a change brings the new body', async () => {
    const cached = createClient({ baseUrl: t.proxy.url, apiKey: t.apiKey, retry: false, etags: true });
    const reportId = reportIds[2]!;
    const one = /^\/api\/v1\/reports\/[^/]+$/;
    const since = t.proxy.seen.length;
    const first = await cached.call('getReport', { path: { reportId } });
    const second = await cached.call('getReport', { path: { reportId } });
    expect(second).toEqual(first);
    const asked = attempts('GET', one, since);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatchObject({ status: 200, ifNoneMatch: undefined });
    expect(asked[1]).toMatchObject({ status: 304, ifNoneMatch: expect.stringMatching(/^W\/"/) });

    // A change (paused) makes a new tag: the next ask gets the new body, and keeps it.
    await t.client.call('pauseReport', { path: { reportId } });
    const third = await cached.call('getReport', { path: { reportId } });
    expect(third).toMatchObject({ id: reportId, paused: true });
    expect(first).toMatchObject({ paused: false });
    const fourth = await cached.call('getReport', { path: { reportId } });
    expect(fourth).toEqual(third);
    expect(attempts('GET', one, since).map((s) => s.status)).toEqual([200, 304, 200, 304]);
    await t.client.call('resumeReport', { path: { reportId } });

    // Lists too (through paginate), and the raw client sees a 200 with the body and the tag.
    const listed = async () => { const ids: string[] = []; for await (const r of cached.paginate('listReports', { query: { limit: 2 } })) ids.push(r.id); return ids; };
    const before = t.proxy.seen.length;
    expect(await listed()).toEqual(await listed());
    const pages = attempts('GET', /^\/api\/v1\/reports$/, before).map((s) => s.status);
    expect(pages.slice(pages.length / 2)).toEqual(pages.slice(0, pages.length / 2).map(() => 304));
    const { data, response } = await cached.raw.GET('/api/v1/reports/{reportId}', { params: { path: { reportId } } });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toMatch(/^W\/"/);
    expect(data?.id).toBe(reportId);
  });

  it('is off by default, and keeps answers per credential', async () => {
    const since = t.proxy.seen.length;
    await t.client.call('getReport', { path: { reportId: reportIds[3]! } });
    await t.client.call('getReport', { path: { reportId: reportIds[3]! } });
    expect(attempts('GET', /^\/api\/v1\/reports\/[^/]+$/, since).map((s) => s.ifNoneMatch)).toEqual([undefined, undefined]);
    const cached = createClient({ baseUrl: t.proxy.url, apiKey: t.apiKey, retry: false, etags: { max: 1 } });
    const other = createClient({ baseUrl: t.proxy.url, apiKey: 'hk_wrong_key_0000000000000000', retry: false, etags: true });
    await cached.call('getReport', { path: { reportId: reportIds[3]! } });
    // Another key never gets what this one kept.
    await expect(other.call('getReport', { path: { reportId: reportIds[3]! } })).rejects.toMatchObject({ status: 401 });
    // Past max (1), the older answer is forgotten: asked without a tag.
    await cached.call('getReport', { path: { reportId: reportIds[4]! } });
    const mark = t.proxy.seen.length;
    await cached.call('getReport', { path: { reportId: reportIds[3]! } });
    expect(t.proxy.seen.slice(mark).map((s) => s.ifNoneMatch)).toEqual([undefined]);
  });
});
