/**
 * Benchmark: 10,000 reports due in the same minute, two `herald scheduler` processes
 * (SVC_SCHEDULER_TICK_SECONDS=1) on one store and Redis. Prints the time from the due minute until
 * the last run is queued (its BullMQ job added), the lag (job added − slot) p50/p99, how many runs
 * each scheduler made, and duplicates (runs per report and slot beyond one: must be 0). The
 * schedulers stop before the next minute. Asserts nothing.
 *   npx tsx scripts/bench/scheduler.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import postgres from 'postgres';
import { Queue } from 'bullmq';
import { benchApi, benchPlace, quantile, spawnRole, stopChildren } from './support.js';

const REPORTS = Number(process.env.BENCH_REPORTS ?? 10_000);
const STATES = ['waiting', 'prioritized', 'active', 'completed', 'failed', 'delayed'] as const;

async function main(): Promise<void> {
  const place = await benchPlace();
  const store = postgres(place.dbUrl.toString(), { max: 2, onnotice: () => undefined });
  let api: Awaited<ReturnType<typeof benchApi>> | undefined;
  const schedulers: Awaited<ReturnType<typeof spawnRole>>[] = [];
  const queue = new Queue('runs', { connection: { url: place.redisUrl }, prefix: place.queuePrefix });
  try {
    api = await benchApi(place);
    const { queryId } = await api.selfQuery('select 1 as one');
    const slot = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
    await store`insert into reports (id, key, title, query_id, schedule_cron, schedule_timezone, next_run_at, parameters)
      select gen_random_uuid(), 'due-' || g, 'due ' || g, ${queryId}, '* * * * *', 'UTC', ${slot.toISOString()}::timestamptz, '{}'::jsonb
        from generate_series(1, ${REPORTS}) g`;
    const made = [0, 0];
    for (const i of [0, 1]) {
      schedulers.push(await spawnRole('scheduler', place, { SVC_SCHEDULER_TICK_SECONDS: '1' }, 'scheduler started', (line) => {
        if (line.includes('"due reports queued"')) made[i]! += Number((JSON.parse(line) as { runs: number }).runs);
      }));
    }
    console.log(`scheduler: ${REPORTS} reports due at ${slot.toISOString()}, two scheduler processes ticking every second`);
    for (;;) {
      const counts = await queue.getJobCounts(...STATES);
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      if (total >= REPORTS) break;
      if (Date.now() > slot.getTime() + 50_000) throw new Error(`only ${total} jobs by 50 s after the due minute`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await stopChildren(schedulers); // before the next minute makes more runs
    const jobs = await queue.getJobs([...STATES], 0, -1);
    const lags = jobs.map((j) => (j.timestamp - slot.getTime()) / 1000).sort((a, b) => a - b);
    const [dup] = await store`select count(*)::int as n from (select report_id from runs group by report_id, slot having count(*) > 1) d`;
    const [runs] = await store`select count(*)::int as n, count(distinct report_id)::int as reports from runs where slot = ${slot.toISOString()}::timestamptz`;
    console.log(`  runs for the slot: ${runs!.n as number} for ${runs!.reports as number} reports; duplicates: ${dup!.n as number}; jobs: ${jobs.length}`);
    console.log(`  last run queued ${lags[lags.length - 1]!.toFixed(2)} s after the due minute`);
    console.log(`  lag (job added − slot) p50 ${quantile(lags, 0.5).toFixed(2)} s   p99 ${quantile(lags, 0.99).toFixed(2)} s`);
    console.log(`  runs made by scheduler 1: ${made[0]}, by scheduler 2: ${made[1]}`);
  } finally {
    await stopChildren(schedulers);
    await queue.close();
    await api?.proc.stop();
    await store.end();
    await place.release();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
