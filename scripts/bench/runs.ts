/**
 * Benchmark: end-to-end runs per second of a one-row query with no deliveries, executed by one
 * `herald worker` process (a child process, SVC_WORKER_CONCURRENCY 10 unless BENCH_CONCURRENCY
 * says otherwise). N pending runs (BENCH_RUNS, default 2000) are queued as the API queues them
 * (job id = run id); the clock runs from the first enqueue until the store shows every run
 * finished. Each run does the whole engine path: start, steps committed, the query on a pooled
 * connection, the result file written and renamed, finish, events, metrics.
 * Starts the API in-process on its own fresh database (also the "user database" queried) and
 * prints figures; asserts nothing.
 *   npx tsx scripts/bench/runs.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import postgres from 'postgres';
import { createRunQueue } from '../../src/jobs/run-report-spec.js';
import { benchApi, benchPlace, quantile, queueRunsAndWait, spawnRole, stopChildren } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);

async function main(): Promise<void> {
  const place = await benchPlace();
  const store = postgres(place.dbUrl.toString(), { max: 2, onnotice: () => undefined });
  let api: Awaited<ReturnType<typeof benchApi>> | undefined;
  const children: Awaited<ReturnType<typeof spawnRole>>[] = [];
  try {
    api = await benchApi(place);
    const { queryId } = await api.selfQuery('select 1 as one');
    const report = await api.post('/api/v1/reports', { title: 'Bench', query_id: queryId });
    // One worker process; its start-up is not measured.
    children.push(await spawnRole('worker', place, { SVC_WORKER_CONCURRENCY: String(CONCURRENCY) }, 'worker started'));

    const queue = createRunQueue(api.proc.container.enqueue);
    const { seconds, enqueueSeconds, statuses } = await queueRunsAndWait(store, (id) => queue.enqueue(id, report.id), report.id, RUNS, false);
    const durations = (await store`select extract(epoch from finished_at - started_at) * 1000 as ms from runs where finished_at is not null order by 1`)
      .map((r) => Number(r.ms));
    console.log(`runs end to end (select 1, no deliveries, 1 worker process, concurrency ${CONCURRENCY})`);
    console.log(`  ${RUNS} runs in ${seconds.toFixed(1)} s: ${(RUNS / seconds).toFixed(0)} runs/s   (enqueueing took ${enqueueSeconds.toFixed(1)} s)`);
    console.log(`  run duration (started → finished) p50 ${quantile(durations, 0.5).toFixed(1)} ms   p99 ${quantile(durations, 0.99).toFixed(1)} ms`);
    console.log(`  statuses: ${statuses}`);
  } finally {
    await stopChildren(children);
    await api?.proc.stop();
    await store.end();
    await place.release();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
