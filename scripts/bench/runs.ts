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
import { benchApi, benchPlace, quantile, spawnRole, stopChildren } from './support.js';

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

    const ids = (await store`insert into runs (id, report_id, trigger, status, deliver, created_at, updated_at)
      select gen_random_uuid(), ${report.id}, 'manual', 'pending', false, now(), now() from generate_series(1, ${RUNS})
      returning id`).map((r) => r.id as string);
    const queue = createRunQueue(api.proc.container.enqueue);
    const t0 = performance.now();
    for (let i = 0; i < ids.length; i += 100) await Promise.all(ids.slice(i, i + 100).map((id) => queue.enqueue(id, report.id)));
    const enqueued = performance.now() - t0;
    for (;;) {
      const [row] = await store`select count(*)::int as n from runs where report_id = ${report.id} and status not in ('pending', 'running')`;
      if (row!.n >= RUNS) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - t0) / 1000;
    const byStatus = await store`select status, count(*)::int as n from runs group by status order by status`;
    const durations = (await store`select extract(epoch from finished_at - started_at) * 1000 as ms from runs where finished_at is not null order by 1`)
      .map((r) => Number(r.ms));
    console.log(`runs end to end (select 1, no deliveries, 1 worker process, concurrency ${CONCURRENCY})`);
    console.log(`  ${RUNS} runs in ${seconds.toFixed(1)} s: ${(RUNS / seconds).toFixed(0)} runs/s   (enqueueing took ${(enqueued / 1000).toFixed(1)} s)`);
    console.log(`  run duration (started → finished) p50 ${quantile(durations, 0.5).toFixed(1)} ms   p99 ${quantile(durations, 0.99).toFixed(1)} ms`);
    console.log(`  statuses: ${byStatus.map((r) => `${r.status as string} ${r.n as number}`).join(', ')}`);
  } finally {
    await stopChildren(children);
    await api?.proc.stop();
    await store.end();
    await place.release();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
