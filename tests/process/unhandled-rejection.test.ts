/**
 * A statement that is given a transaction id and returns a few rows fails its run with
 * query.not_read_only; the refusal comes from the connector's check after the last row, while the
 * run engine may still be opening the result file. That refusal once went unhandled and the CLI
 * exited on it (one run in three took the whole process down): here a real `herald worker`
 * process runs many such runs, and every one ends failed while the process stays up.
 */
import postgres from 'postgres';
import { startHerald, type Herald as InProcess } from '../support/harness.js';
import { herald, killChildren, type Herald } from '../support/child-process.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

let h: InProcess;
let editor: SessionClient;
let src: PostgresSource;
let store: postgres.Sql;
let connectionId: string;
let worker: Herald;

beforeAll(async () => {
  h = await startHerald(); // the API only: runs execute in the child process
  const admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  src = await createPostgresSource(async () => undefined);
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  store = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });
  worker = herald(['worker'], { ...h.iso.env, SVC_LOG_LEVEL: 'info', SVC_WORKER_CONCURRENCY: '4' });
});
afterAll(async () => {
  await killChildren();
  await store.end();
  await h.stop();
  await src.drop();
});

async function reportOf(name: string, sql: string): Promise<string> {
  const queryId = (await editor.post('/api/v1/queries').send({ name, connection_id: connectionId, sql }).expect(201)).body.id as string;
  return (await editor.post('/api/v1/reports').send({ title: name, query_id: queryId }).expect(201)).body.id as string;
}

async function waitForAll(runIds: string[], ms: number): Promise<Array<{ id: string; status: string; error_code: string | null }>> {
  const until = Date.now() + ms;
  for (;;) {
    const rows = await store<Array<{ id: string; status: string; error_code: string | null }>>`
      select id, status, error_code from runs where id in ${store(runIds)}`;
    if (rows.every((r) => !['pending', 'running'].includes(r.status))) return rows;
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) {
      throw new Error(`the worker exited (${worker.child.exitCode ?? worker.child.signalCode})\n${worker.stdout()}\n${worker.stderr()}`);
    }
    if (Date.now() > until) throw new Error(`runs still unfinished\n${worker.stdout()}\n${worker.stderr()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

it('forty runs that take a transaction id all end failed with query.not_read_only, and the worker process stays up', async () => {
  const txid = await reportOf('txid', 'select txid_current() as t from generate_series(1, 3)');
  const runIds: string[] = [];
  for (let i = 0; i < 40; i += 1) {
    runIds.push((await editor.post(`/api/v1/reports/${txid}/run`).send({ deliver: false }).expect(202)).body.id as string);
  }
  const ended = await waitForAll(runIds, 120_000);
  expect(ended).toHaveLength(40);
  for (const r of ended) expect(r).toMatchObject({ status: 'failed', error_code: 'query.not_read_only' });
  expect(worker.child.exitCode).toBeNull();
  expect(worker.child.signalCode).toBeNull();
  expect(worker.stdout() + worker.stderr()).not.toMatch(/unhandled/i);

  // Still serving: a good run after them succeeds on the same process.
  const fine = await reportOf('fine', 'select 1 as one');
  const ok = (await editor.post(`/api/v1/reports/${fine}/run`).send({ deliver: false }).expect(202)).body.id as string;
  expect(await waitForAll([ok], 60_000)).toEqual([expect.objectContaining({ status: 'success' })]);

  // The API describes the failure, with the statement rolled back.
  const run = (await editor.get(`/api/v1/runs/${runIds[0]}`).expect(200)).body;
  expect(run.error).toEqual({ code: 'query.not_read_only', message: expect.stringMatching(/rolled back/) });
}, 240_000);

it('lo_create in a read-only run fails that run and nothing else', async () => {
  const lo = await reportOf('lo', 'select lo_create(0) as oid from generate_series(1, 3)');
  const runIds: string[] = [];
  for (let i = 0; i < 10; i += 1) {
    runIds.push((await editor.post(`/api/v1/reports/${lo}/run`).send({ deliver: false }).expect(202)).body.id as string);
  }
  const ended = await waitForAll(runIds, 120_000);
  for (const r of ended) {
    expect(r.status).toBe('failed');
    expect(['query.not_read_only', 'query.failed']).toContain(r.error_code);
  }
  expect(worker.child.exitCode).toBeNull();
  const [left] = await src.sql<Array<{ n: number }>>`select count(*)::int as n from pg_largeobject_metadata`;
  expect(left?.n).toBe(0); // nothing was left behind in the user database
}, 240_000);
