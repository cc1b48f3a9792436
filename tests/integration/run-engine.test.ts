/**
 * The run engine in a worker role (in-process here; tests/process/worker-crash.test.ts runs
 * `herald worker` as its own process): runs of a real PostgreSQL query stream into a result file,
 * keep steps, columns, a 20-row sample and the row count; conditions end runs skipped; SQL
 * errors, writes and time limits end them failed with their code (the time limit tests run the
 * run job with a limit of a second or two); a cancel stops the statement on the database;
 * metrics and log lines follow. tests/unit/run-engine.test.ts covers the same on fakes with a
 * manual clock.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type postgres from 'postgres';
import { newId } from '../../src/core/ids.js';
import { createRunQueue, runJobSpec } from '../../src/jobs/run-report-spec.js';
import { buildJobCatalog } from '../../src/main/worker-jobs.js';
import { createServices } from '../../src/main/services.js';
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { holdTableLock } from '../support/table-lock.js';

let h: Herald;
let admin: SessionClient;
let editor: SessionClient;
let src: PostgresSource;
let connectionId: string;
let userDb: postgres.Sql;

beforeAll(async () => {
  h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_RUN_TIMEOUT_SECONDS: '10', SVC_OUTBOUND_ALLOW: '127.0.0.1' } });
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table sales (id int primary key, region text not null, total numeric(12,2))`;
    await sql`insert into sales select g, case when g % 2 = 0 then 'EU' else 'US' end, g * 1.5 from generate_series(1, 100) g`;
    // Read by a run that must not end before the test lets go of its lock on it.
    await sql`create table gate (n int)`;
    await sql`insert into gate values (7)`;
  });
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Shop')).expect(201)).body.id;
  userDb = src.sql;
});
afterAll(async () => {
  await h.stop();
  await src.drop();
});

let n = 0;
async function report(sql: string, extra: Record<string, unknown> = {}, parameters: unknown[] = []): Promise<string> {
  n += 1;
  const q = await editor.post('/api/v1/queries').send({ name: `q${n}`, connection_id: connectionId, sql, parameters });
  expect(q.status).toBe(201);
  const r = await editor.post('/api/v1/reports').send({ title: `r${n}`, query_id: q.body.id, ...extra });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

async function runAndWait(reportId: string, until = (s: string) => !['pending', 'running'].includes(s)) {
  const queued = await editor.post(`/api/v1/reports/${reportId}/run`).send({});
  expect(queued.status).toBe(202);
  return waitForRun(queued.body.id, until);
}

async function waitForRun(id: string, until = (s: string) => !['pending', 'running'].includes(s)) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await editor.get(`/api/v1/runs/${id}`);
    expect(res.status).toBe(200);
    if (until(res.body.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${id} is still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('runs a query into a result file with steps, columns, a 20-row sample and the row count', async () => {
  const id = await report('select id, region, total from sales where region = {{ region }} or {{ region }} = \'all\' order by id',
    { parameters: { region: 'all' } }, [{ name: 'region', type: 'string', required: true }]);
  const run = await runAndWait(id);
  expect(run).toMatchObject({
    status: 'success', row_count: 100, error: null, attempts: 1, query_version: 1, has_result: true, condition_met: null,
    columns: [{ name: 'id', type: 'int4' }, { name: 'region', type: 'text' }, { name: 'total', type: 'numeric' }],
  });
  expect(run.sample).toHaveLength(20);
  expect(run.sample[0]).toEqual([1, 'US', '1.50']);
  expect(run.steps.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([['query', 'success'], ['result_file', 'success']]);
  expect(run.steps[0].detail).toMatchObject({ rows: 100 });
  expect(run.steps[1].detail.bytes).toBeGreaterThan(0);
  expect(run.duration_ms).toBeGreaterThanOrEqual(0);
  const [row] = await h.process.container.sql`select result_key from runs where id = ${run.id}`;
  const stored = await h.process.container.artifacts.readResult(row!.result_key as string);
  expect(stored!.columns).toEqual(run.columns);
  const rows: unknown[][] = [];
  for await (const batch of stored!.batches) rows.push(...batch);
  expect(rows).toHaveLength(100);
  expect(rows[99]).toEqual([100, 'EU', '150.00']);
  // The result's hash ("changed" conditions compare it with the previous run's) stays what it
  // always was: SHA-256 of the columns' JSON, then "\n" and each row's JSON.
  const [hashed] = await h.process.container.sql`select result_hash from runs where id = ${run.id}`;
  expect(hashed!.result_hash).toBe(createHash('sha256').update(JSON.stringify(run.columns) + rows.map((r) => `\n${JSON.stringify(r)}`).join('')).digest('hex'));
  const listed = (await editor.get(`/api/v1/reports/${id}`)).body.last_run;
  expect(listed).toMatchObject({ id: run.id, status: 'success' });
  const logs = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.run_id === run.id);
  expect(logs.map((l) => l.message)).toEqual(expect.arrayContaining(['run started', 'run finished']));
  expect(logs.every((l) => l.report_id === id)).toBe(true);
  const metrics = (await h.http.get('/metrics')).text;
  expect(metrics).toMatch(/svc_runs_total\{status="success",trigger="manual"\} [1-9]/);
  expect(metrics).toMatch(/svc_query_rows_count [1-9]/);
});

it('ends skipped when the condition is false, and for changed, when the result is the same as before', async () => {
  const none = await report('select id from sales where id < 0', { condition: { type: 'rows_exist' } });
  const skipped = await runAndWait(none);
  expect(skipped).toMatchObject({ status: 'skipped', condition_met: false, row_count: 0, has_result: true });
  expect(skipped.steps.map((s: { name: string }) => s.name)).toEqual(['query', 'condition', 'result_file']);
  const big = await report('select count(*)::int as n from sales', { condition: { type: 'value', column: 'n', op: 'gte', value: 100 } });
  expect(await runAndWait(big)).toMatchObject({ status: 'success', condition_met: true });
  const changed = await report('select region, count(*)::int from sales group by region order by region', { condition: { type: 'changed' } });
  expect(await runAndWait(changed)).toMatchObject({ status: 'success', condition_met: true });
  expect(await runAndWait(changed)).toMatchObject({ status: 'skipped', condition_met: false });
  await userDb`insert into sales values (1000, 'APAC', 1)`;
  expect(await runAndWait(changed)).toMatchObject({ status: 'success', condition_met: true });
  await userDb`delete from sales where id = 1000`;
});

it('ends failed with the database\'s message, and refuses a statement that writes', async () => {
  const broken = await runAndWait(await report('select nope from sales'));
  expect(broken).toMatchObject({ status: 'failed', has_result: false, error: { code: 'query.failed' } });
  expect(broken.error.message).toMatch(/nope/);
  expect(broken.steps).toEqual([expect.objectContaining({ name: 'query', status: 'failed', error: broken.error })]);
  const writer = await runAndWait(await report('delete from sales returning id'));
  expect(writer).toMatchObject({ status: 'failed', error: { code: 'query.not_read_only' } });
  expect((await userDb`select count(*)::int as n from sales`)[0]!.n).toBe(100);
});

it('cancels a running run: the statement stops on the database and the run ends cancelled', async () => {
  const id = await report('select pg_sleep(30) as slept');
  const queued = (await editor.post(`/api/v1/reports/${id}/run`).send({})).body;
  await waitForRun(queued.id, (s) => s === 'running');
  // The statement runs as itself or inside COPY (…) TO STDOUT (src/plugins/postgres/copy.ts).
  await waitUntil(async () => (await userDb`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like '%select pg_sleep(30)%'`)[0]!.n === 1);
  const asked = await editor.post(`/api/v1/runs/${queued.id}/cancel`);
  expect(asked.status).toBe(202);
  const run = await waitForRun(queued.id);
  expect(run).toMatchObject({ status: 'cancelled', error: { code: 'run.cancelled' } });
  expect(run.steps[0]).toMatchObject({ name: 'query', status: 'cancelled' });
  await waitUntil(async () => (await userDb`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like '%select pg_sleep(30)%'`)[0]!.n === 0);
  // Every line about the run, the worker's 'cancellation received' included, names its report.
  const logs = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.run_id === queued.id);
  expect(logs.map((l) => l.message)).toEqual(expect.arrayContaining(['run started', 'run cancellation received', 'run finished']));
  expect(logs.every((l) => l.report_id === id)).toBe(true);
});

it('a cancel missed on the event bus is found by the running run\'s own poll', async () => {
  const id = await report('select pg_sleep(30) as slept');
  const queued = (await editor.post(`/api/v1/reports/${id}/run`).send({})).body;
  await waitForRun(queued.id, (s) => s === 'running');
  await waitUntil(async () => (await userDb`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like '%select pg_sleep(30)%'`)[0]!.n === 1);
  // As if run.cancel were lost (pub/sub is at most once): only the row says so.
  await h.process.container.sql`update runs set cancel_requested_at = now() where id = ${queued.id}`;
  const run = await waitForRun(queued.id);
  expect(run).toMatchObject({ status: 'cancelled', error: { code: 'run.cancelled' } });
  await waitUntil(async () => (await userDb`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like '%select pg_sleep(30)%'`)[0]!.n === 0);
});

it('ends failed with run.parameters_invalid when the query now needs a value the report does not have', async () => {
  const id = await report('select count(*)::int as n from sales');
  const queryId = (await editor.get(`/api/v1/reports/${id}`)).body.query_id as string;
  const changed = await editor.patch(`/api/v1/queries/${queryId}`).send({
    version: 1, sql: 'select count(*)::int as n from sales where region = {{ region }}',
    parameters: [{ name: 'region', type: 'string', required: true }],
  });
  expect(changed.status).toBe(200);
  const run = await runAndWait(id);
  expect(run).toMatchObject({ status: 'failed', has_result: false, query_version: 2, error: { code: 'run.parameters_invalid' } });
  expect(run.error.message).toMatch(/region/);
  expect(run.steps).toEqual([expect.objectContaining({ name: 'query', status: 'failed', error: run.error })]);
});

/**
 * Executes a run as the worker's run job does, with a time limit of `seconds`: shorter than
 * SVC_RUN_TIMEOUT_SECONDS may be, so that a test of the limit waits a second or two, not ten.
 */
async function runWithLimit(reportId: string, seconds: number) {
  const c = h.process.container;
  const runId = newId();
  await c.sql`insert into runs (id, report_id, trigger, status, attempts) values (${runId}, ${reportId}, 'manual', 'pending', 0)`;
  const limited = { ...c, settings: { ...c.settings, runTimeoutSeconds: seconds } };
  const job = buildJobCatalog(limited, createServices(limited)).get(runJobSpec.name)!;
  await job.handle({ runId, reportId }, { signal: new AbortController().signal, job: { id: runId, name: job.name, attemptsMade: 0 } });
  return waitForRun(runId);
}

it('ends failed with run.timeout past its time limit (SVC_RUN_TIMEOUT_SECONDS, 1 s here), the statement stopped', async () => {
  const run = await runWithLimit(await report('select pg_sleep(25) as slept'), 1);
  expect(run).toMatchObject({ status: 'failed', error: { code: 'run.timeout' } });
  expect(run.steps[0]).toMatchObject({ name: 'query', status: 'failed', error: { code: 'run.timeout' } });
  await waitUntil(async () => (await userDb`select count(*)::int as n from pg_stat_activity where datname = current_database() and query like 'select pg_sleep(25)%'`)[0]!.n === 0);
}, 30_000);

it('bounds its query and file by its time limit, not its deliveries: a peer that answers after the limit still gets the delivery, and the run ends success', async () => {
  const received: string[] = [];
  // Answers each request 3 s later: past the run's 2-second limit.
  const peer = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => { received.push(String(req.headers['webhook-id'])); setTimeout(() => res.end('ok'), 3000); });
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  try {
    const id = await report('select 1 as one');
    const channel = (await admin.post('/api/v1/channels').send({
      name: 'Answers late', type: 'webhook', settings: { url: `http://127.0.0.1:${(peer.address() as AddressInfo).port}/hook` },
    }).expect(201)).body.id as string;
    await editor.post(`/api/v1/reports/${id}/deliveries`).send({ channel_id: channel, settings: {} }).expect(201);
    const run = await runWithLimit(id, 2);
    expect(run).toMatchObject({ status: 'success', error: null });
    expect(run.steps.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([['query', 'success'], ['result_file', 'success'], ['delivery', 'success']]);
    expect(run.delivery_attempts).toEqual([expect.objectContaining({ id: received[0], status: 'sent', sends: 1 })]);
    expect(Date.parse(run.finished_at) - Date.parse(run.started_at)).toBeGreaterThan(2000);
  } finally {
    peer.closeAllConnections();
    await new Promise<void>((resolve) => peer.close(() => resolve()));
  }
}, 30_000);

it('stops a run whose report is deleted while it runs, and keeps no file', async () => {
  const id = await report('select pg_sleep(30) as slept');
  const queued = (await editor.post(`/api/v1/reports/${id}/run`).send({})).body;
  await waitForRun(queued.id, (s) => s === 'running');
  expect((await editor.delete(`/api/v1/reports/${id}`)).status).toBe(204);
  await waitUntil(async () => (await userDb`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like '%select pg_sleep(30)%'`)[0]!.n === 0);
  expect((await editor.get(`/api/v1/runs/${queued.id}`)).status).toBe(404);
  expect(existsSync(path.join(h.iso.dataDir, 'results', id))).toBe(false);
});

it('ends cancelled a run whose cancel was asked for while no worker held it (its worker was lost)', async () => {
  const id = await report('select 1 as one');
  const runId = newId();
  const c = h.process.container;
  await c.sql`insert into runs (id, report_id, trigger, status, attempts, started_at, cancel_requested_at)
    values (${runId}, ${id}, 'manual', 'running', 1, now(), now())`;
  await createRunQueue(c.enqueue).enqueue(runId, id);
  const run = await waitForRun(runId);
  expect(run).toMatchObject({ status: 'cancelled', attempts: 2, error: { code: 'run.cancelled' }, has_result: false });
});

it('records nothing from a stale attempt once another attempt has taken the run', async () => {
  // The statement waits for the lock the test holds on `gate` until attempt 2 has taken the run,
  // however long that takes a loaded machine (a 1.5 s sleep before, which it could outlast).
  const id = await report('select n from gate');
  const gate = await holdTableLock(userDb, 'gate');
  let queued: { id: string };
  try {
    queued = (await editor.post(`/api/v1/reports/${id}/run`).send({})).body;
    await waitForRun(queued.id, (s) => s === 'running');
    // As if BullMQ had given the job to a second worker (this one's lock was lost): attempt 2 holds it.
    await h.process.container.sql`update runs set attempts = attempts + 1 where id = ${queued.id}`;
  } finally {
    await gate.release();
  }
  await waitUntil(async () => h.logs.some((l) => l.includes('run ended or taken again elsewhere') && l.includes(queued.id)));
  const run = (await editor.get(`/api/v1/runs/${queued.id}`)).body;
  expect(run).toMatchObject({ status: 'running', attempts: 2, row_count: null, finished_at: null });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('takes and ends a run each in one statement with its events: the outbox holds runUpdated and runChanged of the run, and a refused event leaves the run untaken', async () => {
  const sql = h.process.container.sql;
  const id = await report('select 7 as n');
  const run = await runAndWait(id);
  expect(run.status).toBe('success');
  const rows = await sql`select type, data from events where data->>'id' = ${run.id} or (type = 'report.updated' and data->>'id' = ${id} and data->>'change' = 'ran') order by id`;
  const ofRun = rows.map((r) => ({ type: r.type as string, data: r.data as Record<string, unknown> }));
  // queued (the API's), running (the claim's, built by the store as runUpdated builds it), and the end's pair.
  expect(ofRun.map((e) => [e.type, e.data.status ?? e.data.change])).toEqual([
    ['run.updated', 'pending'], ['report.updated', 'ran'], ['run.updated', 'running'], ['run.updated', 'success'], ['report.updated', 'ran'],
  ]);
  expect(ofRun[2]!.data).toEqual({ id: run.id, report_id: id, status: 'running', trigger: 'manual' });
  expect(ofRun[3]!.data).toEqual({ id: run.id, report_id: id, status: 'success', trigger: 'manual', finished_at: new Date(run.finished_at as string).toISOString() });

  // The outbox refuses the claim's event: the claim (one statement) rolls back whole, the run stays pending.
  await sql.unsafe(`create function refuse_running() returns trigger language plpgsql as $$ begin raise exception 'outbox refused'; end $$;
    create trigger refuse_running before insert on events for each row when (new.data->>'status' = 'running') execute function refuse_running()`);
  try {
    const queued = (await editor.post(`/api/v1/reports/${id}/run`).send({}).expect(202)).body;
    await waitUntil(async () => h.logs.some((l) => l.includes('outbox refused')));
    const [row] = await sql`select status, attempts, started_at from runs where id = ${queued.id}`;
    expect(row).toMatchObject({ status: 'pending', attempts: 0, started_at: null });
  } finally {
    await sql.unsafe('drop trigger refuse_running on events; drop function refuse_running()');
  }
});
