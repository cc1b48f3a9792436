/**
 * Storage and retention: GET /system/storage reports the local backend, the bytes and count of
 * stored result files, the oldest and the retention; svc_storage_bytes says the same (read from
 * the shared store); the scheduler's hourly retention job removes files past
 * SVC_RESULT_RETENTION_DAYS (the clock is moved; API keys, since sessions would expire), after
 * which the run has no result and its links answer 410 link.expired, and the figures follow.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { manualClock } from '../../src/core/clock.js';
import { buildSchedulerTasks } from '../../src/main/scheduler-tasks.js';
import { startHerald, type Herald, type HttpClient } from '../support/harness.js';
import { createKey, createSignedInUser, keyClient, setupAdmin } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

const DAY = 86_400_000;
const clock = manualClock(new Date());
let h: Herald;
let admin: HttpClient;
let editor: HttpClient;
let src: PostgresSource;
let reportId: string;
let smallId: string;

async function run(report = reportId): Promise<{ id: string; has_result: boolean; created_at: string }> {
  const queued = await editor.post(`/api/v1/reports/${report}/run`).send({}).expect(202);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = (await editor.get(`/api/v1/runs/${queued.body.id}`)).body;
    if (r.status === 'success') return r;
    if (Date.now() > deadline) throw new Error(`run is ${r.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

beforeAll(async () => {
  h = await startHerald({ clock, env: { SVC_ROLES: 'api,worker', SVC_RESULT_RETENTION_DAYS: '30' } });
  const session = await setupAdmin(h);
  const edna = await createSignedInUser(h, session, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  admin = keyClient(h, (await createKey(session, { name: 'ops', scope: 'admin' })).token);
  editor = keyClient(h, (await createKey(session, { name: 'edna', scope: 'write', owner_id: (await edna.get('/api/v1/me')).body.id })).token);
  // 2,000 rows of md5 text: a file past what the store keeps in its own row (inline-results.ts).
  src = await createPostgresSource(async (sql) => { await sql`create table t as select g as id, md5(g::text) as h from generate_series(1, 2000) g`; });
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id;
  const q = await editor.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select * from t' }).expect(201);
  reportId = (await editor.post('/api/v1/reports').send({ title: 'Kept', query_id: q.body.id }).expect(201)).body.id;
  const few = await editor.post('/api/v1/queries').send({ name: 'Few', connection_id: connectionId, sql: 'select id from t where id <= 2 order by id' }).expect(201);
  smallId = (await editor.post('/api/v1/reports').send({ title: 'Small', query_id: few.body.id }).expect(201)).body.id;
});
afterAll(async () => {
  await h.stop();
  await src.drop();
});

it('reports the stored files, and retention removes those past it with the figures following', async () => {
  const empty = (await admin.get('/api/v1/system/storage').expect(200)).body;
  expect(empty).toEqual({
    backend: 'local', location: path.join(h.settings.dataDir, 'results'), bytes: 0, files: 0, oldest_file_at: null,
    retention_days: 30, backups: { configured: false },
  });
  const old = await run();
  const link = (await editor.post('/api/v1/links').send({ run_id: old.id, expires_in_days: 90 }).expect(201)).body;
  clock.advance(20 * DAY);
  const recent = await run();
  const [a, b] = await h.process.container.sql`select id, result_key, result_bytes from runs where id in (${old.id}, ${recent.id}) order by created_at`;
  const figures = (await admin.get('/api/v1/system/storage')).body;
  expect(figures).toMatchObject({ files: 2, bytes: Number(a!.result_bytes) + Number(b!.result_bytes) });
  expect(figures.oldest_file_at).toBe((await editor.get(`/api/v1/runs/${old.id}`)).body.created_at);
  expect((await h.http.get('/metrics')).text).toContain(`svc_storage_bytes ${figures.bytes}`);
  const fileOf = (key: string) => path.join(h.settings.dataDir, 'results', `${key}.ndjson.gz`);
  expect(existsSync(fileOf(a!.result_key as string))).toBe(true);

  clock.advance(11 * DAY); // old is 31 days old, recent 11
  const retention = buildSchedulerTasks(h.process.container, h.process.services).find((t) => t.name === 'result retention')!;
  await retention.run(clock.now());
  expect(existsSync(fileOf(a!.result_key as string))).toBe(false);
  expect(existsSync(fileOf(b!.result_key as string))).toBe(true);
  const after = (await admin.get('/api/v1/system/storage')).body;
  expect(after).toMatchObject({ files: 1, bytes: Number(b!.result_bytes) });
  expect((await h.http.get('/metrics')).text).toContain(`svc_storage_bytes ${after.bytes}`);
  expect((await editor.get(`/api/v1/runs/${old.id}`)).body.has_result).toBe(false);
  const download = await editor.get(`/api/v1/runs/${old.id}/result`);
  expect([download.status, download.body.code]).toEqual([404, 'run.no_result']);
  const viaLink = await h.http.get(new URL(link.url).pathname);
  expect([viaLink.status, viaLink.body.code]).toEqual([410, 'link.expired']);
  expect((await editor.get(`/api/v1/runs/${recent.id}/result`)).status).toBe(200);
  expect((await editor.get('/api/v1/system/storage')).status).toBe(403);
});

it('keeps a small result in the store: no file, served and counted, and retention removes it', async () => {
  const before = (await admin.get('/api/v1/system/storage')).body;
  const kept = await run(smallId);
  const [row] = await h.process.container.sql`select result_key, result_bytes from runs where id = ${kept.id}`;
  expect(row!.result_key).toBe(`db:${smallId}/${kept.id}`);
  expect(existsSync(path.join(h.settings.dataDir, 'results', smallId))).toBe(false);
  const [stored] = await h.process.container.sql`select length(bytes)::int as n from run_results where run_id = ${kept.id}`;
  expect(stored!.n).toBe(Number(row!.result_bytes));
  expect((await editor.get(`/api/v1/runs/${kept.id}/result`).buffer(true)).text).toBe('id\r\n1\r\n2\r\n');
  expect((await editor.get(`/api/v1/runs/${kept.id}/result?format=json`)).body).toEqual({ columns: [{ name: 'id', type: 'int4' }], rows: [[1], [2]] });
  const link = (await editor.post('/api/v1/links').send({ run_id: kept.id, expires_in_days: 90 }).expect(201)).body;
  expect((await h.http.get(new URL(link.url).pathname).buffer(true)).text).toBe('id\r\n1\r\n2\r\n');
  expect((await admin.get('/api/v1/system/storage')).body).toMatchObject({ files: before.files + 1, bytes: before.bytes + Number(row!.result_bytes) });

  clock.advance(31 * DAY);
  const retention = buildSchedulerTasks(h.process.container, h.process.services).find((t) => t.name === 'result retention')!;
  await retention.run(clock.now());
  expect(await h.process.container.sql`select run_id from run_results where run_id = ${kept.id}`).toEqual([]);
  expect((await editor.get(`/api/v1/runs/${kept.id}`)).body.has_result).toBe(false);
  expect((await editor.get(`/api/v1/runs/${kept.id}/result`)).body.code).toBe('run.no_result');
  expect((await h.http.get(new URL(link.url).pathname)).status).toBe(410);
});
