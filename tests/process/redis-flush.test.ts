/**
 * Redis loses its data (FLUSHALL, a restart without persistence, a failover to an empty replica)
 * while runs execute. Their workers are alive: a run's liveness is its lease in the store, renewed
 * by its worker, not its job in Redis. A `herald scheduler` whose sweep comes after the flush (its
 * clock five minutes ahead, so every run looks old to it) leaves the live runs alone; they finish
 * `success` on their first attempt, and the worker goes on taking new runs.
 */
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { startHerald, type Herald as InProcess } from '../support/harness.js';
import { herald, killChildren, type Herald } from '../support/child-process.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { privateRedis, until, type PrivateRedis } from '../support/private-redis.js';
import { clockOffsetEnv } from '../support/faketime.js';
import { holdTableLock, type HeldLock } from '../support/table-lock.js';

let redis: PrivateRedis;
let h: InProcess;
let editor: SessionClient;
let src: PostgresSource;
let store: postgres.Sql;
let connectionId: string;
/** The lock on the table the slow runs read (let go in afterAll at the latest, should the test fail first). */
let gate: HeldLock | undefined;

beforeAll(async () => {
  redis = await privateRedis();
  await redis.start();
  h = await startHerald({ env: { SVC_REDIS_URL: redis.url } }); // the API only
  const admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table gate (n int)`;
    await sql`insert into gate values (1)`;
  });
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  store = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });
}, 60_000);
afterAll(async () => {
  await gate?.release();
  await killChildren();
  await store.end();
  await h.stop();
  await src.drop();
  await redis.remove();
});

const settings = (extra: Record<string, string> = {}) => ({ ...h.iso.env, SVC_REDIS_URL: redis.url, SVC_LOG_LEVEL: 'info', ...extra });

async function reportOf(name: string, sql: string): Promise<string> {
  const queryId = (await editor.post('/api/v1/queries').send({ name, connection_id: connectionId, sql }).expect(201)).body.id as string;
  return (await editor.post('/api/v1/reports').send({ title: name, query_id: queryId }).expect(201)).body.id as string;
}

const states = (ids: string[]) => store<Array<{ id: string; status: string; attempts: number; error_code: string | null }>>`
  select id, status, attempts, error_code from runs where id in ${store(ids)} order by id`;

function alive(p: Herald): void {
  if (p.child.exitCode !== null || p.child.signalCode !== null) throw new Error(`a process exited\n${p.stdout()}\n${p.stderr()}`);
}

it('runs executing when Redis loses its data finish success on their first attempt; the sweep leaves them alone', async () => {
  const worker = herald(['worker'], settings({ SVC_WORKER_CONCURRENCY: '4' }));
  // The runs read a table this test holds locked: they execute until it lets go, after the
  // scheduler has started and swept, however long a loaded machine takes (a fixed 20 s sleep
  // before, which every run of the suite waited out).
  const slow = await reportOf('Slow', 'select n as slept, 7 as answer from gate');
  gate = await holdTableLock(src.sql, 'gate');
  const runIds: string[] = [];
  for (let i = 0; i < 3; i += 1) runIds.push((await editor.post(`/api/v1/reports/${slow}/run`).send({ deliver: false }).expect(202)).body.id as string);
  await until(async () => { alive(worker); return (await states(runIds)).every((r) => r.status === 'running'); }, 'the runs to start', 60_000, 100);

  const client = new Redis(redis.url);
  await client.flushall();
  expect(await client.dbsize()).toBe(0);
  await client.quit();

  // A scheduler whose sweep runs now; to its own clock every run is five minutes old.
  const scheduler = herald(['scheduler'], settings({ SVC_SCHEDULER_TICK_SECONDS: '1', ...clockOffsetEnv(300) }));
  await until(async () => { alive(scheduler); return scheduler.stdout().includes('scheduler started'); }, 'the scheduler to start', 60_000, 100);
  // Let it tick (and sweep) a few times while the runs still execute.
  await new Promise((r) => setTimeout(r, 3000));
  expect((await states(runIds)).map((r) => r.status)).toEqual(['running', 'running', 'running']);
  await gate.release();

  await until(async () => { alive(worker); return (await states(runIds)).every((r) => !['pending', 'running'].includes(r.status)); }, 'the runs to finish', 60_000, 200);
  for (const r of await states(runIds)) expect(r).toMatchObject({ status: 'success', attempts: 1, error_code: null });
  const run = (await editor.get(`/api/v1/runs/${runIds[0]}`).expect(200)).body;
  expect(run.sample[0][1]).toBe(7);
  expect(scheduler.stdout()).not.toMatch(/run.worker_lost|lost its worker/);

  // The worker takes new runs after the flush.
  const fast = await reportOf('Fast', 'select 1 as one');
  const next = (await editor.post(`/api/v1/reports/${fast}/run`).send({ deliver: false }).expect(202)).body.id as string;
  await until(async () => (await states([next]))[0]?.status === 'success', 'a new run to succeed after the flush', 60_000, 100);
}, 180_000);
