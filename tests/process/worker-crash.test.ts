/**
 * `herald worker` as a separate process, killed with SIGKILL mid-run: BullMQ's stalled-job check
 * (a short lock: SVC_WORKER_LOCK_SECONDS) hands the run's job to the next worker, which starts
 * the run again (attempts 2) and finishes it; a run whose workers keep dying ends failed with
 * run.worker_lost after the bounded number of losses, never stuck in running.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { startHerald, type Herald as InProcess } from '../support/harness.js';
import { herald, killChildren, waitFor, type Herald } from '../support/child-process.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { MAX_RUN_STARTS } from '../../src/domain/runs/model.js';

let h: InProcess;
let editor: SessionClient;
let admin: SessionClient;
let src: PostgresSource;
let store: postgres.Sql;
let connectionId: string;
let n = 0;

beforeAll(async () => {
  h = await startHerald({ env: { SVC_OUTBOUND_ALLOW: '127.0.0.1' } }); // the API only: runs execute in child processes
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  src = await createPostgresSource(async () => undefined);
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  store = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });
});
afterAll(async () => {
  await killChildren();
  await store.end();
  await h.stop();
  await src.drop();
});

const startWorker = (): Herald => herald(['worker'], {
  ...h.iso.env, SVC_LOG_LEVEL: 'info', SVC_WORKER_LOCK_SECONDS: '2', SVC_WORKER_CONCURRENCY: '2', SVC_OUTBOUND_ALLOW: '127.0.0.1',
});

async function kill(w: Herald): Promise<void> {
  w.child.kill('SIGKILL');
  await w.exited;
}

async function runOf(sql: string): Promise<string> {
  n += 1;
  const queryId = (await editor.post('/api/v1/queries').send({ name: `Q${n}`, connection_id: connectionId, sql }).expect(201)).body.id as string;
  const reportId = (await editor.post('/api/v1/reports').send({ title: `R${n}`, query_id: queryId }).expect(201)).body.id as string;
  return (await editor.post(`/api/v1/reports/${reportId}/run`).send({ deliver: false }).expect(202)).body.id as string;
}

const state = async (runId: string) => {
  const [row] = await store`select status, attempts, error_code from runs where id = ${runId}`;
  return row as { status: string; attempts: number; error_code: string | null };
};

it('a run whose worker is killed mid-run is taken again by another worker and finishes (attempts 2)', async () => {
  const runId = await runOf('select pg_sleep(4) as slept, 42 as answer');
  const first = startWorker();
  await waitFor(async () => { const s = await state(runId); return s.status === 'running' && s.attempts === 1; }, 'the first worker to start the run', 60_000, first);
  await kill(first);
  expect((await state(runId)).status).toBe('running');
  const second = startWorker();
  const done = await waitFor(async () => { const s = await state(runId); return s.status !== 'running' && s.status !== 'pending' ? s : undefined; },
    'the run to finish on the second worker', 90_000, second);
  expect(done).toMatchObject({ status: 'success', attempts: 2, error_code: null });
  const run = (await editor.get(`/api/v1/runs/${runId}`).expect(200)).body;
  expect(run).toMatchObject({ status: 'success', attempts: 2, row_count: 1, has_result: true });
  expect(run.sample[0][1]).toBe(42);
  expect(run.steps.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([['query', 'success'], ['result_file', 'success']]);
  await kill(second);
}, 180_000);

it('a run whose workers keep dying ends failed with run.worker_lost, never stuck in running', async () => {
  // The events every process publishes (the worker's too, through Redis): the end is announced.
  const events: Array<{ type: string; data: Record<string, unknown> }> = [];
  const unsubscribe = await h.process.container.events.subscribe((e) => { events.push(e); });
  const runId = await runOf('select pg_sleep(60) as slept');
  let seen = 0;
  let final: Awaited<ReturnType<typeof state>> | undefined;
  for (let round = 0; round < 8 && !final; round += 1) {
    const w = startWorker();
    const s = await waitFor(async () => {
      const now = await state(runId);
      return (now.status === 'running' && now.attempts > seen) || !['running', 'pending'].includes(now.status) ? now : undefined;
    }, `round ${round}: the run to start again or end`, 90_000, w);
    if (s.status === 'running') {
      seen = s.attempts;
      await kill(w);
    } else {
      final = s;
      // The worker that ended it publishes the end after recording it: let it finish first.
      await waitFor(async () => events.some((e) => e.type === 'report.updated' && e.data.change === 'ran'
        && (e.data.last_run as { status?: string } | undefined)?.status === 'failed'), 'the end to be announced', 20_000, w);
      await kill(w);
    }
  }
  // Each loss was a fresh start of the run: three starts in all (the README's "after three lost
  // attempts"), then it ends failed.
  expect(final).toMatchObject({ status: 'failed', error_code: 'run.worker_lost', attempts: MAX_RUN_STARTS });
  expect(seen).toBe(MAX_RUN_STARTS);
  const run = (await editor.get(`/api/v1/runs/${runId}`).expect(200)).body;
  expect(run.error).toEqual({ code: 'run.worker_lost', message: expect.any(String) });
  expect(run.finished_at).toEqual(expect.any(String));
  expect(run.steps.every((s: { status: string }) => s.status !== 'running')).toBe(true);
  await waitFor(async () => events.some((e) => e.type === 'report.updated' && e.data.id === run.report_id && e.data.change === 'ran'
    && (e.data.last_run as { id?: string; status?: string } | undefined)?.status === 'failed'), 'report.updated (ran, failed)', 10_000);
  expect(events).toContainEqual({ type: 'run.updated', data: expect.objectContaining({ id: runId, status: 'failed', error_code: 'run.worker_lost' }) });
  await unsubscribe();
}, 400_000);

it('a worker killed after a delivery was sent and before it was recorded: the next worker takes its job again and sends it under the same webhook-id, never resends what was recorded sent, and does not run the query again', async () => {
  // Two receivers: "fast" answers at once; "slow" holds the first request open (it got the
  // message, the answer never reaches the worker) until the worker is killed.
  const received: { fast: string[]; slow: string[] } = { fast: [], slow: [] };
  let holdSlow = true;
  const server = http.createServer((req, res) => {
    const name = (req.url ?? '').slice(1);
    req.resume();
    req.on('end', () => {
      if (name === 'fast' || name === 'slow') received[name].push(String(req.headers['webhook-id']));
      if (name === 'slow' && holdSlow) return; // never answers
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const fast = (await admin.post('/api/v1/channels').send({ name: 'fast', type: 'webhook', settings: { url: `${base}/fast` } }).expect(201)).body;
    const slow = (await admin.post('/api/v1/channels').send({ name: 'slow', type: 'webhook', settings: { url: `${base}/slow` } }).expect(201)).body;
    n += 1;
    const queryId = (await editor.post('/api/v1/queries').send({ name: `Q${n}`, connection_id: connectionId, sql: 'select 1 as one' }).expect(201)).body.id as string;
    const reportId = (await editor.post('/api/v1/reports').send({ title: `R${n}`, query_id: queryId }).expect(201)).body.id as string;
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: fast.id, settings: {} }).expect(201);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: slow.id, settings: {} }).expect(201);
    const runId = (await editor.post(`/api/v1/reports/${reportId}/run`).send({}).expect(202)).body.id as string;

    const first = startWorker();
    // The deliveries are jobs of their own, sent side by side: kill once the fast one is recorded
    // sent (what is recorded sent is never sent again) and the slow one is at its receiver.
    const fastRecorded = async () => (await store`select status from delivery_attempts where run_id = ${runId} and channel_name = 'fast'`)[0]?.status === 'sent';
    await waitFor(async () => received.slow.length === 1 && await fastRecorded(), 'the slow receiver to get the message and the fast one to be recorded sent', 60_000, first);
    await kill(first);
    const [sending] = await store`select id, status from delivery_attempts where run_id = ${runId} and channel_name = 'slow'`;
    expect(sending).toMatchObject({ status: 'sending' });
    holdSlow = false;
    const second = startWorker();
    const done = await waitFor(async () => { const s = await state(runId); return ['success', 'partial', 'failed'].includes(s.status) ? s : undefined; },
      'the run to finish on the second worker', 90_000, second);
    await kill(second);
    // The delivery is a job of its own: the run (its query) was carried once.
    expect(done).toMatchObject({ status: 'success', attempts: 1 });
    const run = (await editor.get(`/api/v1/runs/${runId}`).expect(200)).body;
    const [a, b] = run.delivery_attempts;
    expect(a).toMatchObject({ channel_name: 'fast', status: 'sent', sends: 1 });
    expect(b).toMatchObject({ channel_name: 'slow', status: 'sent', id: sending!.id });
    expect(received.fast).toEqual([a.id]); // recorded sent: not sent again
    expect(received.slow).toEqual([b.id, b.id]); // at least once, the same webhook-id both times
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}, 200_000);

