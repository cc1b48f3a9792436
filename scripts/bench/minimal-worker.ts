/**
 * The ceiling for scripts/bench/runs.ts: issue 29's "minimal worker", written for comparison and
 * measured beside Herald's worker in the same run. It carries Herald's own run jobs (the runs
 * queue under SVC_QUEUE_PREFIX, with the options `herald worker` gives it: concurrency, lock
 * duration, stalled checks) for runs the bench queued in the store, and does for each only what
 * a run cannot do without:
 *   - one prepared UPDATE ... RETURNING that claims the run (pending → running) and reads its
 *     query's SQL (report and query joined);
 *   - the query on a pooled connection to the queried database (BENCH_QUERIED_URL: the bench's
 *     own database, as Herald's connection "Self" names it; no read-only transaction, no limits);
 *   - one prepared UPDATE that finishes it (success, row count, columns, a sample); should the
 *     query or that UPDATE fail, the run ends failed instead (so that the bench's wait ends).
 * Its progress stays in memory: no steps, no events, no result file, no metrics, no log. Run as
 * a child process (one process, as Herald's worker); prints `minimal worker started` once it
 * listens.
 */
import { Worker } from 'bullmq';
import postgres from 'postgres';
import { createRedis } from '../../src/infra/queue/queues.js';
import { QUEUE_NAMES } from '../../src/jobs/catalog.js';

const CONCURRENCY = Number(process.env.SVC_WORKER_CONCURRENCY ?? 10);
const store = postgres(process.env.SVC_DATABASE_URL!, { max: CONCURRENCY, onnotice: () => undefined });
const queried = postgres(process.env.BENCH_QUERIED_URL!, { max: CONCURRENCY, onnotice: () => undefined });

/** $1 run id: the run claimed, with its query's SQL. */
const CLAIM = `update runs r set status = 'running', started_at = now(), attempts = r.attempts + 1, updated_at = now()
  from reports p join queries q on q.id = p.query_id
  where r.id = $1::uuid and r.status = 'pending' and p.id = r.report_id
  returning q.sql`;
/** $1 run id, $2 rows, $3 columns, $4 sample. */
const FINISH = `update runs set status = 'success', finished_at = now(), updated_at = now(),
  row_count = $2::int, columns = $3::jsonb, sample = $4::jsonb where id = $1::uuid`;

/** $1 run id, $2 message: a run whose query or end failed ends failed (the bench waits for every run to end). */
const FAIL = `update runs set status = 'failed', finished_at = now(), updated_at = now(), error_code = 'bench.failed', error_message = $2::text
  where id = $1::uuid and status = 'running'`;

const connection = createRedis(process.env.SVC_REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
const worker = new Worker(QUEUE_NAMES.runs, async (job) => {
  const { runId } = job.data as { runId: string };
  const [source] = await store.unsafe<Array<{ sql: string }>>(CLAIM, [runId], { prepare: true });
  if (!source) return;
  try {
    const rows = await queried.unsafe<Array<Record<string, unknown>>>(source.sql, [], { prepare: true });
    const columns = rows.columns.map((c) => ({ name: c.name, type: String(c.type) }));
    const sample = rows.slice(0, 10).map((r) => Object.values(r));
    await store.unsafe(FINISH, [runId, rows.length, JSON.stringify(columns), JSON.stringify(sample)], { prepare: true });
  } catch (err) {
    console.error(`minimal worker: run ${runId} failed: ${(err as Error).message}`);
    await store.unsafe(FAIL, [runId, (err as Error).message], { prepare: true });
  }
}, {
  connection,
  prefix: process.env.SVC_QUEUE_PREFIX ?? 'bench',
  concurrency: CONCURRENCY,
  lockDuration: 30_000,
  stalledInterval: 30_000,
  maxStalledCount: 2, // MAX_RUN_STARTS - 1, as src/main/worker.ts
  autorun: true,
});
worker.on('ready', () => console.log('minimal worker started'));
process.once('SIGTERM', () => {
  void worker.close().then(async () => {
    connection.disconnect();
    await Promise.all([store.end({ timeout: 5 }), queried.end({ timeout: 5 })]);
    process.exit(0);
  });
});
