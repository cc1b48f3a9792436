/**
 * `herald worker` as a separate process, stopped with SIGTERM while it sends a run's deliveries
 * to a receiver that holds the request: every delivery of the run is recorded from the start
 * (pending), the one cut short records the request it made (sends 1, worker.shutdown in its
 * history) and stays sending, the run stays running; a new worker then sends every one of them
 * (the interrupted one again, under the same webhook-id) and the run ends success. Before
 * deliveries were jobs of their own, the interrupted attempt was recorded failed with sends 0 and
 * the deliveries after it had no attempt at all.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { startHerald, type Herald as InProcess } from '../support/harness.js';
import { herald, killChildren, waitFor, type Herald } from '../support/child-process.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

let h: InProcess;
let editor: SessionClient;
let admin: SessionClient;
let src: PostgresSource;
let store: postgres.Sql;

beforeAll(async () => {
  h = await startHerald({ env: { SVC_OUTBOUND_ALLOW: '127.0.0.1' } }); // the API only: deliveries go out from the child workers
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  src = await createPostgresSource(async () => undefined);
  store = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });
});
afterAll(async () => {
  await killChildren();
  await store.end();
  await h.stop();
  await src.drop();
});

const startWorker = (): Herald => herald(['worker'], {
  ...h.iso.env, SVC_LOG_LEVEL: 'info', SVC_WORKER_LOCK_SECONDS: '2', SVC_OUTBOUND_ALLOW: '127.0.0.1',
  // One send in flight to the channel, so the others wait pending; a short shutdown deadline.
  SVC_DELIVERY_CHANNEL_LIMIT: '1', SVC_SHUTDOWN_TIMEOUT_SECONDS: '1',
});

it('a worker stopped with SIGTERM mid-send leaves every delivery recorded, and they finish after a new worker starts', async () => {
  const received: string[] = [];
  let hold = true;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      if (!hold) res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  try {
    const channel = (await admin.post('/api/v1/channels').send({ name: 'Holds', type: 'webhook', settings: { url } }).expect(201)).body.id as string;
    const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
    const queryId = (await editor.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select 1 as one' }).expect(201)).body.id as string;
    const reportId = (await editor.post('/api/v1/reports').send({ title: 'Three deliveries', query_id: queryId }).expect(201)).body.id as string;
    for (const subject of ['first', 'second', 'third']) {
      await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: channel, settings: { subject } }).expect(201);
    }
    const runId = (await editor.post(`/api/v1/reports/${reportId}/run`).send({}).expect(202)).body.id as string;

    const first = startWorker();
    await waitFor(async () => received.length === 1, 'the receiver to get the first request', 60_000, first);
    first.child.kill('SIGTERM');
    const exit = await first.exited;
    expect(exit.code).toBe(0);
    expect(first.stdout()).toContain('delivery handed back unfinished');

    // Every delivery has its attempt; the one cut short says what happened; the run goes on.
    const attempts = await store`select id, status, sends, history, error from delivery_attempts where run_id = ${runId} order by position`;
    expect(attempts.map((a) => a.status).sort()).toEqual(['pending', 'pending', 'sending']);
    const cut = attempts.find((a) => a.status === 'sending')!;
    expect(cut).toMatchObject({ id: received[0], sends: 1, error: null });
    expect(cut.history).toEqual([expect.objectContaining({ statusCode: null, error: expect.objectContaining({ code: 'worker.shutdown' }) })]);
    expect((await store`select status from runs where id = ${runId}`)[0]!.status).toBe('running');

    hold = false;
    const second = startWorker();
    const run = await waitFor(async () => {
      const r = (await editor.get(`/api/v1/runs/${runId}`).expect(200)).body;
      return r.status === 'running' ? undefined : r;
    }, 'the run to finish on the new worker', 90_000, second);
    second.child.kill('SIGTERM');
    await second.exited;
    expect(run).toMatchObject({ status: 'success', attempts: 1 });
    expect(run.delivery_attempts.map((a: { status: string }) => a.status)).toEqual(['sent', 'sent', 'sent']);
    const again = run.delivery_attempts.find((a: { id: string }) => a.id === cut.id);
    expect(again).toMatchObject({ sends: 2 });
    expect(again.history.map((s: { error: { code: string } | null }) => s.error?.code ?? null)).toEqual(['worker.shutdown', null]);
    // The interrupted one twice under its id (receivers deduplicate), the others once.
    expect(received.filter((id) => id === cut.id)).toHaveLength(2);
    expect(new Set(received).size).toBe(3);
    expect(received).toHaveLength(4);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}, 200_000);
