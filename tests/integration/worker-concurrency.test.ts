/**
 * A worker at concurrency N runs N queries on one saved connection at once (the connection's pool
 * follows the worker's concurrency), and when SVC_CONNECTOR_POOL_SIZE caps the pool below it, the
 * runs that wait for a connection say so (wait_ms) and their query time leaves the wait out.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { waitForRun, type RunBody } from '../support/runs.js';
import { holdTableLock } from '../support/table-lock.js';
import { until } from '../support/wait.js';

let src: PostgresSource;

// The runs' statements read `gate`, which the test holds locked while it looks at them: they
// stay at the database until it lets go, however slowly a loaded machine posts and picks them up.
beforeAll(async () => {
  src = await createPostgresSource(async (sql) => {
    await sql`create table gate (n int)`;
    await sql`insert into gate values (1)`;
  });
});
afterAll(async () => { await src.drop(); });

/** The statements (of the runs) at the source database: how many execute, and how many of them wait for the lock on `gate`. */
async function atTheDatabase(): Promise<{ active: number; locked: number }> {
  const [row] = await src.sql<Array<{ active: number; locked: number }>>`
    select count(*)::int as active, (count(*) filter (where wait_event_type = 'Lock'))::int as locked from pg_stat_activity
     where datname = ${src.database} and pid <> pg_backend_pid() and state = 'active'
       and query like '%from gate%' and query not like '%pg_stat_activity%'`;
  return row ?? { active: 0, locked: 0 };
}

/**
 * Starts `count` runs of one statement reading `gate` while the test holds it locked; once
 * `ready` holds (it is given the runs' ids and what atTheDatabase() saw) and `thenMs` more have
 * passed, lets go, and answers the runs finished, with the most statements seen executing at once.
 */
async function runTogether(h: Herald, count: number, sql: string, what: string,
  ready: (seen: { active: number; locked: number }, admin: SessionClient, ids: string[]) => Promise<boolean> | boolean, thenMs = 0,
): Promise<{ runs: RunBody[]; most: number }> {
  const admin = await setupAdmin(h);
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection(`Src ${count}`)).expect(201)).body.id as string;
  const queryId = (await admin.post('/api/v1/queries').send({ name: 'Slow', connection_id: connectionId, sql }).expect(201)).body.id as string;
  const reportId = (await admin.post('/api/v1/reports').send({ title: 'Slow', query_id: queryId }).expect(201)).body.id as string;
  let most = 0;
  const look = async () => {
    const seen = await atTheDatabase();
    most = Math.max(most, seen.active);
    return seen;
  };
  let done = false;
  const gate = await holdTableLock(src.sql, 'gate');
  const watching = (async () => {
    while (!done) {
      await look();
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) ids.push((await admin.post(`/api/v1/reports/${reportId}/run`).send({ deliver: false }).expect(202)).body.id as string);
    await until(async () => ready(await look(), admin, ids), what, 60_000, 100);
    await new Promise((r) => setTimeout(r, thenMs));
    await gate.release();
    const runs: RunBody[] = [];
    for (const id of ids) runs.push(await waitForRun(admin, id, undefined, 60_000));
    return { runs, most };
  } finally {
    await gate.release();
    done = true;
    await watching;
  }
}

it('a worker at concurrency 10 runs ten statements on one connection at once', async () => {
  const h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_WORKER_CONCURRENCY: '10' } });
  try {
    // The ten wait for the lock on `gate` together (seen as ten statements executing at once),
    // however far apart a loaded machine starts them.
    const { runs, most } = await runTogether(h, 10, 'select n from gate', 'ten statements waiting for the lock on gate',
      (seen) => seen.locked >= 10);
    for (const run of runs) expect(run.status).toBe('success');
    expect(most).toBe(10);
  } finally {
    await h.stop();
  }
}, 120_000);

it('with SVC_CONNECTOR_POOL_SIZE below the concurrency, waiting runs record wait_ms and their query time leaves it out', async () => {
  const h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_WORKER_CONCURRENCY: '4', SVC_CONNECTOR_POOL_SIZE: '2' } });
  try {
    // The two statements that have the pool's connections wait for the lock on `gate` (then sleep
    // two seconds); it is let go once all four runs are running (the other two waiting for a
    // connection) and 1.1 s more have passed: a lower bound on their wait, whatever the machine does.
    const { runs, most } = await runTogether(h, 4, 'select pg_sleep(2) as slept, n from gate', 'two statements waiting for the lock on gate and four runs running',
      async (seen, admin, ids) => seen.locked >= 2
        && (await Promise.all(ids.map(async (id) => (await admin.get(`/api/v1/runs/${id}`).expect(200)).body.status as string))).every((s) => s === 'running'),
      1100);
    expect(most).toBe(2);
    const steps = runs.map((run) => {
      expect(run.status).toBe('success');
      const step = run.steps.find((s: { name: string }) => s.name === 'query');
      return { ...step.detail as { elapsed_ms: number; wait_ms: number }, span: Date.parse(step.finished_at) - Date.parse(step.started_at) };
    });
    for (const s of steps) {
      // pg_sleep(2) takes two seconds at least, whatever the machine does; the wait is not part of it.
      expect(s.elapsed_ms).toBeGreaterThanOrEqual(1990);
      expect(s.wait_ms).toBeGreaterThanOrEqual(0);
      expect(s.elapsed_ms + s.wait_ms).toBeLessThanOrEqual(s.span + 50);
    }
    // Two of the four waited for a connection until one of the first two statements ended.
    const waited = steps.filter((s) => s.wait_ms >= 1000);
    expect(waited).toHaveLength(2);
  } finally {
    await h.stop();
  }
}, 120_000);
