/**
 * The store through PgBouncer in transaction pooling (Debian's pgbouncer 1.18 on loopback, a pool
 * of 5 server connections, tests/support/pgbouncer.ts): a fleet of an API, a scheduler and a
 * worker with SVC_DATABASE_URL through it (SVC_DATABASE_PREPARE=false) and
 * SVC_DATABASE_DIRECT_URL direct migrates, runs manual and scheduled runs to success, tells the
 * event stream of them, hears the store's notifications, and loses nothing when PgBouncer is
 * killed and restarted. Beside it, what the settings change: named prepared statements break
 * through PgBouncer 1.18 and none are made with prepare false; a LISTEN through PgBouncer is
 * said to be deaf; the store limits PgBouncer drops are said to be missing.
 */
import { Writable } from 'node:stream';
import postgres from 'postgres';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { isolate, type Isolated } from '../support/isolation.js';
import { clientFor, type HttpClient } from '../support/harness.js';
import { createKey, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { waitForRun } from '../support/runs.js';
import { openSse, serve } from '../support/sse.js';
import { run as runHerald } from '../support/child-process.js';
import { loadSettings } from '../../src/infra/config/settings.js';
import { createProcessLogger } from '../../src/infra/log/process-logger.js';
import { startProcess, type RunningProcess } from '../../src/main/runtime.js';
import { createPasswordHasher } from '../../src/domain/identity/passwords.js';
import { createDb } from '../../src/infra/db/client.js';
import { createRunsRepo } from '../../src/infra/db/stores/runs-repo.js';
import { newId } from '../../src/core/ids.js';
import { until as waitUntil } from '../support/wait.js';

interface Proc { process: RunningProcess; logs: string[]; http: HttpClient; stop(): Promise<void> }

const hasher = createPasswordHasher(4, 4);

/** One Herald process of the fleet, in this test process, with its log lines captured. */
async function startRole(env: Record<string, string>): Promise<Proc> {
  const logs: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _e, cb) { logs.push(chunk.toString('utf8')); cb(); } });
  const settings = loadSettings(env);
  const proc = await startProcess(settings, createProcessLogger(settings, stream), { listen: false, passwordHasher: hasher });
  return { process: proc, logs, http: clientFor(proc.app ?? (() => undefined) as never), stop: () => proc.stop() };
}

const lines = (p: Proc): Array<Record<string, unknown>> => p.logs.flatMap((l) => l.split('\n')).filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

const until = <T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, ms = 30_000) => waitUntil(check, what, ms, 100);

const heard = (p: Proc) => lines(p).find((l) => String(l.message).includes('notifications arrive on the LISTEN connection'));
const deaf = (p: Proc) => lines(p).find((l) => String(l.message).includes('notifications do not arrive'));

describe('a fleet whose store goes through PgBouncer (transaction pooling)', () => {
  let bouncer: PgBouncer;
  let iso: Isolated;
  let src: PostgresSource;
  let env: Record<string, string>;
  let api: Proc;
  let scheduler: Proc;
  let worker: Proc;
  let admin: SessionClient;
  let direct: postgres.Sql;
  let queryOf: (sql: string, extra?: Record<string, unknown>) => Promise<string>;

  beforeAll(async () => {
    bouncer = await startPgBouncer({ poolSize: 5 });
    iso = await isolate({ template: false }); // an empty database: `herald migrate` makes it
    env = {
      ...iso.env,
      SVC_DATABASE_URL: bouncer.url(iso.databaseName),
      SVC_DATABASE_DIRECT_URL: iso.databaseUrl,
      SVC_DATABASE_PREPARE: 'false',
    };
    direct = postgres(iso.databaseUrl, { max: 1, onnotice: () => undefined });
    src = await createPostgresSource(async (sql) => { await sql`create table t as select g as n from generate_series(1, 50) g`; });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([api?.stop(), scheduler?.stop(), worker?.stop()].filter(Boolean));
    await direct?.end();
    await src?.drop();
    await iso?.release();
    await bouncer?.stop();
  });

  it('migrates a fresh store with herald migrate (on the direct connection)', async () => {
    const out = await runHerald(['migrate'], env);
    expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    expect(out.stdout).toContain('migrations applied');
    const [row] = await direct<Array<{ n: number }>>`select count(*)::int as n from herald_migrations`;
    expect(row!.n).toBeGreaterThan(0);
  }, 60_000);

  it('starts an API, a scheduler and a worker that hear the store\'s notifications on the direct connection', async () => {
    api = await startRole({ ...env, SVC_ROLES: 'api' });
    scheduler = await startRole({ ...env, SVC_ROLES: 'scheduler', SVC_SCHEDULER_TICK_SECONDS: '1' });
    worker = await startRole({ ...env, SVC_ROLES: 'worker', SVC_WORKER_CONCURRENCY: '2' });
    for (const p of [api, scheduler, worker]) {
      await until(() => heard(p) ?? deaf(p), 'the relay\'s notification check');
      expect(deaf(p)).toBeUndefined();
    }
    admin = await setupAdmin({ http: api.http } as never);
    const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
    let n = 0;
    queryOf = async (sql, extra = {}) => {
      n += 1;
      const queryId = (await admin.post('/api/v1/queries').send({ name: `Q${n}`, connection_id: connectionId, sql }).expect(201)).body.id as string;
      return (await admin.post('/api/v1/reports').send({ title: `R${n}`, query_id: queryId, ...extra }).expect(201)).body.id as string;
    };
  }, 60_000);

  it('runs a manual and a scheduled run to success, and the event stream tells of both', async () => {
    const { token } = await createKey(admin, { name: 'watcher', scope: 'admin' });
    const server = await serve(api.process.app!);
    const stream = await openSse(server.url, token);
    try {
      const manualReport = await queryOf('select n from t order by n');
      const manual = (await admin.post(`/api/v1/reports/${manualReport}/run`).send({}).expect(202)).body.id as string;
      expect(await waitForRun(admin, manual, undefined, 30_000)).toMatchObject({ status: 'success', row_count: 50 });

      const scheduledReport = await queryOf('select count(*) as c from t', { schedule: { cron: '* * * * *', timezone: 'UTC' } });
      // Due now rather than at the next minute: the scheduler's tick (every second) claims it.
      await direct`update reports set next_run_at = now() - interval '1 second' where id = ${scheduledReport}`;
      const scheduled = await until(async () => (await direct<Array<{ id: string }>>`select id from runs where report_id = ${scheduledReport} and trigger = 'schedule'`)[0]?.id, 'the scheduled run');
      expect(await waitForRun(admin, scheduled, undefined, 30_000)).toMatchObject({ status: 'success', trigger: 'schedule' });

      const ended = (id: string) => (e: { event: string; data: Record<string, unknown> }) => e.event === 'run.updated' && e.data.id === id && e.data.status === 'success';
      await stream.until((events) => [manual, scheduled].every((id) => events.some(ended(id))), 30_000);
      for (const id of [manual, scheduled]) expect(stream.events.filter(ended(id))).toHaveLength(1);
    } finally {
      await stream.close();
      await server.close();
    }
  }, 90_000);

  it('loses nothing when PgBouncer is killed and restarted: the run under way ends, the next ones succeed', async () => {
    // A run under way (2 s on the user database, which is direct) while every store connection through PgBouncer is cut.
    const slow = (await admin.post(`/api/v1/reports/${await queryOf('select pg_sleep(2) is null as slept')}/run`).send({}).expect(202)).body.id as string;
    await waitForRun(admin, slow, (r) => r.status === 'running', 30_000);
    await bouncer.restart();
    const done = await waitForRun(admin, slow, undefined, 60_000);
    // It ends (never stuck): success, or failed saying why.
    expect(['success', 'failed']).toContain(done.status);
    if (done.status === 'failed') expect(done.error?.code).toEqual(expect.any(String));

    // Requests in flight while PgBouncer is killed and restarted answer, each: done, or 503 with a problem.
    const statuses: number[] = [];
    const burst = Promise.all(Array.from({ length: 40 }, async (_, i) => {
      await new Promise((r) => setTimeout(r, i * 5));
      const res = await admin.get('/api/v1/reports');
      statuses.push(res.status);
      // (A 500 shows the API's log of that error, to say which failure was not taken for the store being away.)
      const unhandled = res.status === 500 ? { log: lines(api).filter((l) => l.message === 'unhandled error').map((l) => JSON.stringify(l.err ?? l).slice(0, 600)) } : {};
      if (res.status !== 200) expect({ status: res.status, type: res.headers['content-type'], ...unhandled }).toEqual({ status: 503, type: expect.stringContaining('application/problem+json') });
    }));
    await bouncer.restart();
    await burst;
    expect(statuses).toHaveLength(40);

    // A restart between requests: the API, the scheduler and the worker go on, and so does the event stream.
    const { token } = await createKey(admin, { name: 'watcher-2', scope: 'admin' });
    const server = await serve(api.process.app!);
    const stream = await openSse(server.url, token);
    try {
      await bouncer.restart();
      const reportId = await queryOf('select 7 as seven');
      const after = (await admin.post(`/api/v1/reports/${reportId}/run`).send({}).expect(202)).body.id as string;
      expect(await waitForRun(admin, after, undefined, 30_000)).toMatchObject({ status: 'success', row_count: 1 });
      await stream.until((events) => events.some((e) => e.event === 'run.updated' && e.data.id === after && e.data.status === 'success'), 30_000);
    } finally {
      await stream.close();
      await server.close();
    }

    // No run is left pending or running. The first test's report runs every minute, so one of its
    // runs may be under way right now: it must end (a lost one within its lease), as a stuck one would not.
    const unfinished = () => direct<Array<{ id: string; status: string; trigger: string }>>`select id, status, trigger from runs where status in ('pending', 'running')`;
    await until(async () => (await unfinished()).length === 0, 'no run pending or running', 60_000).catch(async () => {
      expect(await unfinished()).toEqual([]);
    });
    expect((await api.http.get('/health/ready')).status).toBe(200);
  }, 120_000);
});

describe('what the settings change through PgBouncer 1.18', () => {
  let bouncer: PgBouncer;
  let iso: Isolated;

  beforeAll(async () => {
    bouncer = await startPgBouncer({ poolSize: 2 });
    iso = await isolate();
  }, 60_000);
  afterAll(async () => {
    await iso?.release();
    await bouncer?.stop();
  });

  /**
   * Many statements at once, each with a parameter, from 8 client connections through a pool of
   * 2 server connections: what did not answer (a bound far beyond their few milliseconds each:
   * through PgBouncer 1.18 a named statement's later messages reach another server connection,
   * and postgres.js then waits for an answer that never comes) or failed.
   */
  const burst = async (prepare: boolean): Promise<string[]> => {
    const { sql } = createDb(bouncer.url(iso.databaseName), { max: 8, prepare });
    // Where statements are expected to hang (prepare true), 5 s tells as well as 20 (a shorter
    // wait only turns more of them into failures, which that test expects): 15 s less of the suite.
    const boundMs = prepare ? 5_000 : 20_000;
    const NO_ANSWER = `no answer within ${boundMs / 1000} s`;
    try {
      const results = await Promise.allSettled(Array.from({ length: 80 }, (_, i) => {
        let timer: NodeJS.Timeout | undefined;
        return Promise.race([
          sql.unsafe(`select $1::int + ${i % 7} as n, pg_sleep(0.001)`, [i], { prepare: true }).finally(() => clearTimeout(timer)),
          new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(NO_ANSWER)), boundMs); }),
        ]);
      }));
      return results.filter((r) => r.status === 'rejected').map((r) => String(((r as PromiseRejectedResult).reason as Error)?.message));
    } finally {
      await sql.end({ timeout: 1 });
    }
  };

  it('SVC_DATABASE_PREPARE=true: named prepared statements break through PgBouncer 1.18 in transaction pooling', async () => {
    const failures = await burst(true);
    expect(failures.length).toBeGreaterThan(0);
    for (const f of failures) expect(f).toMatch(/no answer within 5 s|prepared statement "[^"]+" (does not exist|already exists)/);
  }, 60_000);

  it('SVC_DATABASE_PREPARE=false: the same statements all succeed, and the store makes no named statement, even where asked', async () => {
    expect(await burst(false)).toEqual([]);
    // On a direct connection of its own, the run engine's statements that ask for { prepare: true }.
    const { sql, db } = createDb(iso.databaseUrl, { max: 1, prepare: false });
    try {
      const runs = createRunsRepo(db, sql);
      // (No such report: the statement runs all the same, and queues nothing.)
      await runs.queue({ id: newId(), reportId: newId(), trigger: 'manual', deliver: false, createdBy: null, createdAt: new Date() } as never, []);
      const [row] = await sql<Array<{ n: number }>>`select count(*)::int as n from pg_prepared_statements`;
      expect(row!.n).toBe(0);
    } finally {
      await sql.end({ timeout: 5 });
    }
    // The control: with prepare true the same client names them.
    const on = createDb(iso.databaseUrl, { max: 1, prepare: true });
    try {
      await on.sql`select ${1}::int as one`;
      const [row] = await on.sql<Array<{ n: number }>>`select count(*)::int as n from pg_prepared_statements`;
      expect(row!.n).toBeGreaterThan(0);
    } finally {
      await on.sql.end({ timeout: 5 });
    }
  }, 60_000);

  it('says at start-up that notifications do not arrive when LISTEN goes through PgBouncer (no direct URL)', async () => {
    const p = await startRole({ ...iso.env, SVC_DATABASE_URL: bouncer.url(iso.databaseName), SVC_DATABASE_PREPARE: 'false', SVC_ROLES: 'api' });
    try {
      const line = await until(() => heard(p) ?? deaf(p), 'the relay\'s notification check', 30_000);
      expect(line).toMatchObject({ level: 'warn', setting: 'SVC_DATABASE_URL' });
      expect(String(line.message)).toMatch(/set SVC_DATABASE_DIRECT_URL to a direct connection/);
    } finally {
      await p.stop();
    }
  }, 60_000);

  it('says which store limits PgBouncer dropped, and is quiet once the database sets them', async () => {
    const missing = (p: Proc) => lines(p).find((l) => String(l.message).includes('does not apply the limits'));
    const pooled = { ...iso.env, SVC_DATABASE_URL: bouncer.url(iso.databaseName), SVC_DATABASE_DIRECT_URL: iso.databaseUrl, SVC_DATABASE_PREPARE: 'false', SVC_ROLES: 'api' };
    const p = await startRole(pooled);
    try {
      const line = await until(() => missing(p), 'the limits check');
      expect(line).toMatchObject({ level: 'warn', setting: 'SVC_DATABASE_URL' });
      expect(line.limits).toEqual(['statement_timeout: asked 30000ms, applied 0', 'lock_timeout: asked 5000ms, applied 0', 'idle_in_transaction_session_timeout: asked 5000ms, applied 0']);
    } finally {
      await p.stop();
    }
    // As the README says: set on the database (or the role), every server connection PgBouncer opens has them.
    const admin = postgres(iso.databaseUrl, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`alter database ${iso.databaseName} set statement_timeout = '30s'`);
    await admin.unsafe(`alter database ${iso.databaseName} set lock_timeout = '5s'`);
    await admin.unsafe(`alter database ${iso.databaseName} set idle_in_transaction_session_timeout = '5s'`);
    await admin.end();
    await bouncer.restart(); // new server connections
    const q = await startRole(pooled);
    try {
      await until(() => heard(q) ?? deaf(q), 'the relay\'s notification check');
      const [row] = await q.process.container.sql<Array<{ s: string }>>`select current_setting('statement_timeout') as s`;
      expect(row!.s).toBe('30s');
      expect(missing(q)).toBeUndefined();
    } finally {
      await q.stop();
    }
  }, 90_000);

  it('herald migrate uses SVC_DATABASE_DIRECT_URL: it works with SVC_DATABASE_URL pointing nowhere', async () => {
    const fresh = await isolate({ template: false });
    try {
      const out = await runHerald(['migrate'], { ...fresh.env, SVC_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere', SVC_DATABASE_DIRECT_URL: fresh.databaseUrl });
      expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
      expect(out.stdout).toContain('migrations applied');
    } finally {
      await fresh.release();
    }
  }, 60_000);
});
