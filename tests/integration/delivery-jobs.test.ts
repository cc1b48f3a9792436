/**
 * Deliveries as jobs of their own, with an in-process worker and real receivers on loopback:
 * receivers that hang do not hold up other runs (the deliveries queue, the per-channel limit in
 * flight), a failing channel's circuit opens (fail fast with delivery.channel_failing, retried
 * later) and closes again, a receiver down for longer than the quick retries gets its delivery
 * from the automatic retry schedule without anyone asking, Retry-After past the quick waits goes
 * to the schedule, and a permanent refusal is not retried. This file's schedule is scaled down
 * (2 s steps) so that it runs in seconds; tests/unit/retry-schedule.test.ts checks the default
 * one against a 90-second outage.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { httpPeer, type HttpPeer } from '../support/peers.js';
import { waitForRun, type RunBody } from '../support/runs.js';
import { until as waitUntil } from '../support/wait.js';

const SECRET = `whsec_${Buffer.from('b'.repeat(32)).toString('base64')}`;

let h: Herald;
let admin: SessionClient;
let editor: SessionClient;
let src: PostgresSource;
let connectionId: string;
let peer: HttpPeer;

beforeAll(async () => {
  h = await startHerald({
    env: {
      SVC_ROLES: 'api,worker', SVC_OUTBOUND_ALLOW: '127.0.0.1', SVC_WORKER_CONCURRENCY: '4', SVC_DELIVERY_CHANNEL_LIMIT: '2',
      SVC_DELIVERY_SENDS: '2', SVC_DELIVERY_BACKOFF_MS: '50', SVC_DELIVERY_BREAKER_FAILURES: '3', SVC_DELIVERY_BREAKER_SECONDS: '2',
      SVC_DELIVERY_RETRY_SCHEDULE: Array(20).fill('2s').join(','), // the most allowed: on a loaded machine the receiver recovers long after the first failure
    },
  });
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  src = await createPostgresSource(async () => undefined);
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  peer = await httpPeer();
});
afterAll(async () => {
  await h.stop();
  await src.drop();
  await peer.close();
});

let n = 0;
async function reportTo(channelIds: string[], sql = 'select 1 as one'): Promise<string> {
  n += 1;
  const queryId = (await editor.post('/api/v1/queries').send({ name: `q${n}`, connection_id: connectionId, sql }).expect(201)).body.id as string;
  const reportId = (await editor.post('/api/v1/reports').send({ title: `R${n}`, query_id: queryId }).expect(201)).body.id as string;
  for (const ch of channelIds) await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: {} }).expect(201);
  return reportId;
}
async function webhook(url: string): Promise<string> {
  n += 1;
  return (await admin.post('/api/v1/channels').send({ name: `Hook ${n}`, type: 'webhook', settings: { url, signing_secret: SECRET } }).expect(201)).body.id as string;
}
const queueRun = async (reportId: string, body: Record<string, unknown> = {}): Promise<string> =>
  (await editor.post(`/api/v1/reports/${reportId}/run`).send(body).expect(202)).body.id as string;
const runOf = (id: string, until?: (run: RunBody) => boolean, ms?: number) => waitForRun(editor, id, until, ms);

const until = <T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, ms = 20_000) => waitUntil(check, what, ms, 25);

/** A receiver that holds every request until `answer()`, counting how many it holds at once. */
async function hangingReceiver() {
  let holding = true;
  const held: http.ServerResponse[] = [];
  const seen: string[] = [];
  let most = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(String(req.headers['webhook-id']));
      if (!holding) { res.end('ok'); return; }
      held.push(res);
      most = Math.max(most, held.filter((r) => !r.writableEnded).length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    seen,
    mostAtOnce: () => most,
    answer() { holding = false; for (const r of held) r.end('ok'); },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const sql = () => h.process.container.sql;

describe('a receiver that hangs', () => {
  it('holds up no other run: four runs delivering to it leave the run slots free, and at most the channel\'s limit is in flight', async () => {
    const hanging = await hangingReceiver();
    try {
      const slow = await reportTo([await webhook(hanging.url)]);
      const runs: string[] = [];
      for (let i = 0; i < 4; i += 1) runs.push(await queueRun(slow));
      // Every run reaches its delivery step; two sends are in flight (SVC_DELIVERY_CHANNEL_LIMIT 2), two wait pending.
      await until(async () => {
        const rows = await sql()`select count(*)::int as n from runs where id = any(${runs}) and status = 'running' and delivering_since is not null`;
        return rows[0]!.n === 4 && hanging.seen.length >= 2;
      }, 'the four runs to deliver and the receiver to hold two requests');
      const statuses = await sql()`select status, count(*)::int as n from delivery_attempts where run_id = any(${runs}) group by status order by status`;
      expect(statuses.map((r) => [r.status, r.n])).toEqual([['pending', 2], ['sending', 2]]);

      // An unrelated run starts at once (it waited 121 s behind four such deliveries when they were sent inside the run's job).
      const quick = await queueRun(await reportTo([], 'select 42 as answer'), { deliver: false });
      const done = await runOf(quick);
      expect(done.status).toBe('success');
      const [row] = await sql()`select extract(epoch from started_at - created_at) * 1000 as waited_ms from runs where id = ${quick}`;
      expect(Number(row!.waited_ms)).toBeLessThan(10_000); // not behind the deliveries (121 s), with room for a loaded machine

      hanging.answer();
      for (const id of runs) expect((await runOf(id)).status).toBe('success');
      expect(hanging.mostAtOnce()).toBeLessThanOrEqual(2);
      expect(new Set(hanging.seen).size).toBe(4);
    } finally {
      await hanging.close();
    }
  });
});

describe('a failing channel', () => {
  it('opens its circuit after three failed sends in a row: later deliveries fail fast with delivery.channel_failing and are sent once it recovers', async () => {
    const failing = await httpPeer();
    try {
      failing.fallback = { status: 503, body: 'down' };
      const reportId = await reportTo([await webhook(`${failing.url}/hook`)]);
      const first = await runOf(await queueRun(reportId), (r) => r.status !== 'pending' && r.status !== 'running');
      expect(first.status).toBe('failed');
      expect(first.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 2, error: { code: 'delivery.peer_error' } });
      expect(first.delivery_attempts[0].next_retry_at).not.toBeNull();
      // The third failure in a row opens the circuit: the quick retry is not made, the schedule takes over.
      const second = await runOf(await queueRun(reportId));
      expect(second.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 1, error: { code: 'delivery.peer_error' } });
      const before = failing.requests.length;
      const third = await runOf(await queueRun(reportId));
      expect(third.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 0, error: { code: 'delivery.channel_failing' } });
      expect(Date.parse(third.delivery_attempts[0].next_retry_at)).toBeGreaterThan(Date.now());
      expect(failing.requests.length).toBe(before);

      // The receiver recovers: the automatic retries (a trial send first, which closes the circuit) deliver all three.
      failing.fallback = { status: 200, body: 'ok' };
      for (const run of [first, second, third]) {
        const after = await runOf(run.id, (r) => r.status === 'success', 60_000);
        expect(after.delivery_attempts[0]).toMatchObject({ id: run.delivery_attempts[0].id, status: 'sent', next_retry_at: null });
      }
      const ids = failing.requests.filter((r) => r.headers['webhook-id'] === third.delivery_attempts[0].id);
      expect(ids).toHaveLength(1);
    } finally {
      await failing.close();
    }
  }, 180_000); // three runs, then up to three retry waits on a loaded machine
});

describe('the automatic retry schedule', () => {
  it('delivers to a receiver that was down for longer than the quick retries, without anyone asking, keeping every failure in the history', async () => {
    // A port that refuses connections until the receiver comes up on it.
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => { const p = (probe.address() as AddressInfo).port; probe.close(() => resolve(p)); });
    });
    const received: string[] = [];
    const receiver = http.createServer((req, res) => { req.resume(); req.on('end', () => { received.push(String(req.headers['webhook-id'])); res.end('ok'); }); });
    try {
      const reportId = await reportTo([await webhook(`http://127.0.0.1:${port}/hook`)]);
      const runId = await queueRun(reportId);
      const failed = await runOf(runId);
      expect(failed.status).toBe('failed');
      expect(failed.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 2, error: { code: 'delivery.unreachable' } });
      const downFor = Date.now();
      // Down for a while yet (several steps of this file's 2-second schedule), then up.
      await new Promise((r) => setTimeout(r, 5000));
      await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
      const sent = await runOf(runId, (r) => r.status === 'success', 30_000);
      const attempt = sent.delivery_attempts[0];
      expect(attempt).toMatchObject({ status: 'sent', error: null, next_retry_at: null });
      expect(received).toEqual([attempt.id]);
      expect(Date.now() - downFor).toBeGreaterThan(5000);
      // Every request is in the history: the failures (refused, or the open circuit's fast failures) and the one that went through.
      expect(attempt.history.length).toBeGreaterThanOrEqual(3);
      expect(attempt.history.at(-1)).toMatchObject({ status_code: 200, error: null });
      expect(attempt.history.slice(0, 2).map((s: { error: { code: string } }) => s.error.code)).toEqual(['delivery.unreachable', 'delivery.unreachable']);
    } finally {
      await new Promise<void>((resolve) => { receiver.closeAllConnections(); receiver.close(() => resolve()); });
    }
  }, 60_000); // five seconds down, then up to thirty for the schedule's retry

  it('leaves a Retry-After longer than the quick waits to the schedule, and does not retry a permanent refusal', async () => {
    peer.requests.length = 0;
    peer.script.push({ status: 429, headers: { 'retry-after': '120' }, body: 'slow down' });
    const limited = await runOf(await queueRun(await reportTo([await webhook(`${peer.url}/limited`)])));
    const attempt = limited.delivery_attempts[0];
    // One request (no quick retry two minutes long), the next one planned after the Retry-After.
    expect(attempt).toMatchObject({ status: 'failed', sends: 1, status_code: 429 });
    expect(Date.parse(attempt.next_retry_at) - Date.now()).toBeGreaterThan(110_000);

    // A person's retry replaces the planned one.
    const resent = await editor.post(`/api/v1/runs/${limited.id}/attempts/${attempt.id}/retry`).send({});
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ status: 'queued', next_retry_at: null });
    const after = await runOf(limited.id, (r) => r.status === 'success');
    expect(after.delivery_attempts[0]).toMatchObject({ status: 'sent', sends: 2, next_retry_at: null });
    expect(after.delivery_attempts[0].history.map((s: { status_code: number }) => s.status_code)).toEqual([429, 200]);
    // Each request's entry says how much was sent and how the peer answered.
    const [first, second] = after.delivery_attempts[0].history;
    expect(first).toMatchObject({ response_excerpt: 'slow down', error: { code: 'delivery.peer_error' } });
    expect(second).toMatchObject({ response_excerpt: 'ok', error: null });
    expect(first.bytes_sent).toBe(Buffer.byteLength(peer.requests[0]!.raw));
    expect(second.bytes_sent).toBe(first.bytes_sent);

    peer.script.push({ status: 410, body: 'gone' });
    const refused = await runOf(await queueRun(await reportTo([await webhook(`${peer.url}/gone`)])));
    expect(refused.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 1, status_code: 410, next_retry_at: null, error: { code: 'delivery.rejected' } });
  });
});
