/**
 * The SDK's streaming helpers against a real Herald (api and worker) behind a loopback proxy:
 * runReport waiting for a run that succeeds and for one that fails (RunFailedError), a
 * million-row result downloaded as a stream chunk by chunk (and through a shared link), and the
 * event stream resuming with Last-Event-ID after the proxy cut it, without a gap.
 */
import { RunFailedError, type HeraldEvent } from '../../sdk/src/index.js';
import { startSdkHerald, type SdkHerald } from '../support/sdk-herald.js';

let t: SdkHerald;

beforeAll(async () => { t = await startSdkHerald(); });
afterAll(async () => { await t.stop(); });

describe('runReport with wait', () => {
  it('resolves with the finished run', async () => {
    const reportId = await t.report('Quick', 'select 1 as one');
    const run = await t.client.runReport(reportId, { wait: true, deliver: false, timeoutMs: 60_000 });
    expect(run).toMatchObject({ report_id: reportId, status: 'success', partial: false, has_result: true });
    expect(run.finished_at).not.toBeNull();
  });

  it('throws RunFailedError with the run when it fails', async () => {
    const reportId = await t.report('Broken', 'select 1/0 as boom');
    const err = await t.client.runReport(reportId, { wait: true, deliver: false, timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunFailedError);
    const { run } = err as RunFailedError;
    expect(run).toMatchObject({ report_id: reportId, status: 'failed' });
    expect(run.error?.code).toBe('query.failed');
  });

  it('falls back to polling when the event stream is refused', async () => {
    const reportId = await t.report('Polled', 'select 2 as two');
    t.proxy.inject({ method: 'GET', path: /^\/api\/v1\/events$/, answer: 'reset', times: 100 });
    try {
      const run = await t.client.runReport(reportId, { wait: true, deliver: false, timeoutMs: 60_000 });
      expect(run.status).toBe('success');
    } finally {
      t.proxy.clearFaults();
    }
  });
});

describe('downloads', () => {
  let runId: string;

  beforeAll(async () => {
    const reportId = await t.report('Million', 'select g from generate_series(1, 1000000) g');
    runId = (await t.client.runReport(reportId, { wait: true, deliver: false, timeoutMs: 170_000 })).id;
  }, 180_000);

  it('streams a million-row csv chunk by chunk, with its file name', async () => {
    const file = await t.client.download(runId, { format: 'csv' });
    expect(file.filename).toMatch(/^million-\d{4}-\d{2}-\d{2}-\d{4}\.csv$/);
    expect(file.contentType).toMatch(/^text\/csv/);
    let bytes = 0;
    let lines = 0;
    let chunks = 0;
    let largest = 0;
    for await (const chunk of file.stream) {
      chunks += 1;
      bytes += chunk.byteLength;
      largest = Math.max(largest, chunk.byteLength);
      for (const b of chunk) if (b === 10) lines += 1;
    }
    // The header and a million rows, each ending in a line break.
    expect(lines).toBe(1_000_001);
    expect(bytes).toBeGreaterThan(6_000_000);
    if (file.size !== undefined) expect(file.size).toBe(bytes);
    // Consumed as it arrived: many chunks, none more than a small part of the file.
    expect(chunks).toBeGreaterThan(20);
    expect(largest).toBeLessThan(bytes / 20);
  }, 120_000);

  it('streams a shared link (GET /r/{token}) with its file name', async () => {
    const link = await t.client.call('createLink', { body: { run_id: runId, format: 'csv', expires_in_days: 1 } });
    const file = await t.client.downloadShared(link.token);
    expect(file.filename).toMatch(/\.csv$/);
    const reader = file.stream.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value).split(/\r?\n/)[0]).toBe('g');
    await reader.cancel();
  });

  it('throws HeraldError run.no_result for a run without a result file', async () => {
    const reportId = await t.report('Nothing', 'select 1/0 as boom');
    const failed = await t.client.runReport(reportId, { wait: true, deliver: false }).catch((e: RunFailedError) => e.run);
    await expect(t.client.download(failed.id)).rejects.toMatchObject({ status: 404, code: 'run.no_result' });
  });
});

describe('events', () => {
  it('resumes with Last-Event-ID after the connection is cut, without a gap', async () => {
    const reportId = await t.report('Evented', 'select 3 as three');
    const stop = new AbortController();
    const received: HeraldEvent[] = [];
    let opened = 0;
    const lastIdAtOpen: Array<string | undefined> = [];
    const finishedRuns = new Set<string>();
    const consumer = (async () => {
      for await (const event of t.client.events({ signal: stop.signal, reconnectDelayMs: 300, onOpen: () => {
      opened += 1;
      lastIdAtOpen.push(received.findLast((e) => 'id' in e)?.id);
    } })) {
        received.push(event);
        if (event.event === 'run.updated' && ['success', 'failed'].includes(event.data.status)) finishedRuns.add(event.data.id);
      }
    })();
    const until = async (check: () => boolean) => { while (!check()) await new Promise((r) => setTimeout(r, 50)); };
    await until(() => opened === 1);
    const first = await t.client.runReport(reportId, { deliver: false });
    await until(() => finishedRuns.has(first.id));
    const since = t.proxy.seen.length;
    expect(t.proxy.dropEventStreams()).toBe(1);
    // Queued while the stream is down: its events arrive after the reconnect, replayed.
    const second = await t.client.runReport(reportId, { deliver: false });
    await until(() => finishedRuns.has(second.id));
    stop.abort();
    await consumer;

    const reconnect = t.proxy.seen.slice(since).find((s) => s.path === '/api/v1/events');
    // The reconnect asked for what follows the last id received before it.
    expect(opened).toBeGreaterThanOrEqual(2);
    expect(reconnect?.lastEventId).toBe(lastIdAtOpen[1]);
    expect(reconnect?.lastEventId).toMatch(/^\d+$/);
    const ids = received.map((e) => ('id' in e ? Number(e.id) : undefined)).filter((n): n is number => n !== undefined);
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
    expect(received.some((e) => e.event === 'run.updated' && e.data.id === second.id && e.data.status === 'pending')).toBe(true);

    // No gap: a new stream from the first id received replays exactly the rest of what was received.
    const replay = new AbortController();
    const replayed: string[] = [];
    const firstId = String(ids[0]);
    for await (const e of t.client.events({ signal: replay.signal, lastEventId: firstId })) {
      if ('id' in e) replayed.push(e.id);
      if (replayed.length === ids.length - 1) replay.abort();
    }
    expect(replayed).toEqual(ids.slice(1).map(String));
  }, 60_000);
});
