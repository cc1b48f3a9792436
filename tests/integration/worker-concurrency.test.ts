/**
 * A worker at concurrency N runs N queries on one saved connection at once (the connection's pool
 * follows the worker's concurrency), and when SVC_CONNECTOR_POOL_SIZE caps the pool below it, the
 * runs that wait for a connection say so (wait_ms) and their query time leaves the wait out.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { waitForRun, type RunBody } from '../support/runs.js';

let src: PostgresSource;

beforeAll(async () => { src = await createPostgresSource(async () => undefined); });
afterAll(async () => { await src.drop(); });

/** Starts `count` runs of one slow statement and answers them finished, with the most statements seen at once. */
async function runTogether(h: Herald, count: number, sql: string): Promise<{ runs: RunBody[]; most: number }> {
  const admin = await setupAdmin(h);
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection(`Src ${count}`)).expect(201)).body.id as string;
  const queryId = (await admin.post('/api/v1/queries').send({ name: 'Slow', connection_id: connectionId, sql }).expect(201)).body.id as string;
  const reportId = (await admin.post('/api/v1/reports').send({ title: 'Slow', query_id: queryId }).expect(201)).body.id as string;
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push((await admin.post(`/api/v1/reports/${reportId}/run`).send({ deliver: false }).expect(202)).body.id as string);
  let most = 0;
  let done = false;
  const watching = (async () => {
    while (!done) {
      const [row] = await src.sql<Array<{ n: number }>>`
        select count(*)::int as n from pg_stat_activity
         where datname = ${src.database} and pid <> pg_backend_pid() and state = 'active' and query like '%pg_sleep%'`;
      most = Math.max(most, row?.n ?? 0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const runs: RunBody[] = [];
  for (const id of ids) runs.push(await waitForRun(admin, id, undefined, 60_000));
  done = true;
  await watching;
  return { runs, most };
}

it('a worker at concurrency 10 runs ten statements on one connection at once', async () => {
  const h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_WORKER_CONCURRENCY: '10' } });
  try {
    // Long enough that the ten overlap even when a loaded machine starts them seconds apart.
    const { runs, most } = await runTogether(h, 10, 'select pg_sleep(5) as slept');
    for (const run of runs) expect(run.status).toBe('success');
    expect(most).toBe(10);
  } finally {
    await h.stop();
  }
}, 90_000);

it('with SVC_CONNECTOR_POOL_SIZE below the concurrency, waiting runs record wait_ms and their query time leaves it out', async () => {
  const h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_WORKER_CONCURRENCY: '4', SVC_CONNECTOR_POOL_SIZE: '2' } });
  try {
    const { runs, most } = await runTogether(h, 4, 'select pg_sleep(2) as slept');
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
}, 90_000);
