/**
 * Benchmark: reports due in the same minute (BENCH_REPORTS, default 10,000; the issue's goal is
 * 100,000), among BENCH_TOTAL reports in all (the rest due next hour), two `herald scheduler`
 * processes (SVC_SCHEDULER_TICK_SECONDS=1) on one store and Redis. Prints the time from the due
 * minute until the last run is queued (its BullMQ job added), the lag (job added − slot) p50/p99,
 * how many runs each scheduler made, duplicates (runs per report and slot beyond one: must be 0),
 * missed reports, and each scheduler's peak resident memory.
 *
 * The limit, measured first in the same run on the same reports: one process that claims the due
 * reports in batches of 1,000, one statement each (lock, insert the runs, move next_run_at; no
 * schedule arithmetic, no events), and adds their jobs with the same options to a queue of its
 * own. The ratio is Herald's time to the last run queued over the limit's time for the same work.
 * And the queue alone (scripts/bench/queue-floor.ts): two processes adding the same number of jobs
 * with the same options, half each, with no store at all: what BullMQ on this Redis and these
 * cores takes for the jobs, whatever a scheduler does before them. Asserts nothing.
 *   npx tsx scripts/bench/scheduler.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 *   BENCH_REPORTS=100 BENCH_TOTAL=1000000 npx tsx scripts/bench/scheduler.ts   (a few due among many)
 *   BENCH_TICK_SECONDS=10 ticks as the default setting does (1 unless set).
 *   BENCH_PG_LOG_MS=0 logs the schedulers' statements in PostgreSQL's own log.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { Queue } from 'bullmq';
import { benchApi, benchPlace, quantile, spawnRole, stopChildren } from './support.js';

const REPORTS = Number(process.env.BENCH_REPORTS ?? 10_000);
const TOTAL = Math.max(REPORTS, Number(process.env.BENCH_TOTAL ?? REPORTS));
const STATES = ['waiting', 'prioritized', 'active', 'completed', 'failed', 'delayed'] as const;

/** Peak resident memory of a process, in MiB (Linux). */
const peakMiB = (pid: number | undefined): number => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
};

/**
 * The queue alone: two child processes (queue-floor.ts) each add half of `jobs` to a queue of their
 * own; answers the seconds from the go to the last job added, and the children's CPU.
 */
async function queueFloor(place: { env: Record<string, string> }, jobs: number): Promise<{ seconds: number; cpuMs: number[] }> {
  const children = [0, 1].map((i) => spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/queue-floor.ts'], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...place.env, PATH: process.env.PATH ?? '', BENCH_QUEUE: 'floor', BENCH_JOBS: String(Math.ceil(jobs / 2) - (i === 1 && jobs % 2 ? 1 : 0)) },
    stdio: ['pipe', 'pipe', 'inherit'],
  }));
  let gone = false;
  const outputs = children.map((c) => {
    let text = '';
    c.stdout!.on('data', (b: Buffer) => { text += b.toString('utf8'); });
    return { text: () => text, exited: new Promise<number | null>((resolve) => c.once('exit', (code) => { gone = true; resolve(code); })) };
  });
  while (!outputs.every((o) => o.text().includes('queue floor ready'))) {
    if (gone) throw new Error('a queue-floor process exited before it was ready');
    await new Promise((r) => setTimeout(r, 20));
  }
  const go = Date.now();
  for (const c of children) c.stdin!.write('go\n');
  await Promise.all(outputs.map((o) => o.exited));
  const ends = outputs.map((o) => JSON.parse(o.text().split('\n').find((l) => l.startsWith('{'))!) as { endedAt: number; cpuMs: number });
  return { seconds: (Math.max(...ends.map((e) => e.endedAt)) - go) / 1000, cpuMs: ends.map((e) => e.cpuMs) };
}

async function main(): Promise<void> {
  const place = await benchPlace();
  const store = postgres(place.dbUrl.toString(), { max: 2, onnotice: () => undefined });
  let api: Awaited<ReturnType<typeof benchApi>> | undefined;
  const schedulers: Awaited<ReturnType<typeof spawnRole>>[] = [];
  const queue = new Queue('runs', { connection: { url: place.redisUrl }, prefix: place.queuePrefix });
  const limitQueue = new Queue('limit', { connection: { url: place.redisUrl }, prefix: place.queuePrefix });
  try {
    api = await benchApi(place);
    const { queryId } = await api.selfQuery('select 1 as one');
    const later = new Date(Math.ceil((Date.now() + 3_600_000) / 60_000) * 60_000);
    await store`insert into reports (id, key, title, query_id, schedule_cron, schedule_timezone, next_run_at, parameters)
      select gen_random_uuid(), 'r-' || g, 'report ' || g, ${queryId}, '* * * * *', 'UTC',
             case when g <= ${REPORTS} then now() - interval '1 minute' else ${later.toISOString()}::timestamptz end, '{}'::jsonb
        from generate_series(1, ${TOTAL}) g`;
    await store`vacuum analyze reports`;

    // The limit: the same claims, bare.
    const l0 = performance.now();
    for (;;) {
      const claimed = await store`
        with due as (
          select id from reports where next_run_at is not null and not paused and next_run_at <= now()
           order by next_run_at limit 1000 for update skip locked),
        made as (
          insert into runs (id, report_id, trigger, status, deliver, slot, parameters, created_at, updated_at)
          select gen_random_uuid(), id, 'schedule', 'pending', true, date_trunc('minute', now()), '{}'::jsonb, now(), now() from due
          returning id, report_id),
        moved as (update reports r set next_run_at = ${later.toISOString()}::timestamptz, last_run_id = made.id from made where r.id = made.report_id)
        select id, report_id from made`;
      if (claimed.length === 0) break;
      await limitQueue.addBulk(claimed.map((r) => ({
        name: 'run', data: { runId: r.id as string, reportId: r.report_id as string }, opts: { jobId: r.id as string, attempts: 3, backoff: { type: 'exponential', delay: 1000 } },
      })));
    }
    const limitSeconds = (performance.now() - l0) / 1000;
    await limitQueue.obliterate({ force: true });
    const floor = await queueFloor(place, REPORTS);
    const floorQueue = new Queue('floor', { connection: { url: place.redisUrl }, prefix: place.queuePrefix });
    await floorQueue.obliterate({ force: true });
    await floorQueue.close();

    // Herald: the same reports due again at the next minute that leaves time to start the schedulers.
    const slot = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
    await store`update reports set last_run_id = null, next_run_at = case when split_part(key, '-', 2)::int <= ${REPORTS} then ${slot.toISOString()}::timestamptz else next_run_at end`;
    await store`delete from runs`;
    await store`vacuum analyze reports`;
    // BENCH_PG_LOG_MS: the store logs the schedulers' statements slower than that (PostgreSQL's own log).
    if (process.env.BENCH_PG_LOG_MS) await store.unsafe(`alter database ${place.name} set log_min_duration_statement = ${Number(process.env.BENCH_PG_LOG_MS)}`);
    const made = [0, 0];
    /** The schedulers' own time claiming and queueing (the ticks that made runs), in ms. */
    const busy: number[] = [];
    for (const i of [0, 1]) {
      schedulers.push(await spawnRole('scheduler', place, { SVC_SCHEDULER_TICK_SECONDS: process.env.BENCH_TICK_SECONDS ?? '1' }, 'scheduler started', (line) => {
        if (line.includes('"scheduler task slow"')) console.log(`  scheduler ${i + 1}: ${line}`);
        if (!line.includes('"due reports queued"')) return;
        const tick = JSON.parse(line) as { runs: number; ms: number };
        made[i]! += tick.runs;
        busy.push(tick.ms);
      }));
    }
    const idleMiB = schedulers.map((c) => peakMiB(c.pid));
    console.log(`scheduler: ${REPORTS} reports due at ${slot.toISOString()} among ${TOTAL}, two scheduler processes ticking every ${process.env.BENCH_TICK_SECONDS ?? '1'} s`);
    let total = 0;
    for (;;) {
      const counts = await queue.getJobCounts(...STATES);
      total = Object.values(counts).reduce((a, b) => a + b, 0);
      if (total >= REPORTS) break;
      if (Date.now() > slot.getTime() + 50_000) { console.log(`  only ${total} jobs by 50 s after the due minute`); break; }
      await new Promise((r) => setTimeout(r, 100));
    }
    const peak = schedulers.map((c) => peakMiB(c.pid));
    await stopChildren(schedulers); // before the next minute makes more runs
    const jobs = await queue.getJobs([...STATES], 0, -1);
    const lags = jobs.map((j) => (j.timestamp - slot.getTime()) / 1000).sort((a, b) => a - b);
    const [dup] = await store`select count(*)::int as n from (select report_id from runs group by report_id, slot having count(*) > 1) d`;
    const [runs] = await store`select count(*)::int as n, count(distinct report_id)::int as reports from runs where slot = ${slot.toISOString()}::timestamptz`;
    const last = lags[lags.length - 1]!;
    console.log(`  runs for the slot: ${runs!.n as number} for ${runs!.reports as number} reports; duplicates: ${dup!.n as number}; missed: ${REPORTS - (runs!.reports as number)}; jobs: ${jobs.length}`);
    console.log(`  last run queued ${last.toFixed(2)} s after the due minute`);
    console.log(`  lag (job added − slot) p50 ${quantile(lags, 0.5).toFixed(2)} s   p99 ${quantile(lags, 0.99).toFixed(2)} s`);
    console.log(`  runs made by scheduler 1: ${made[0]}, by scheduler 2: ${made[1]}; ticks that made runs took ${busy.join(', ')} ms`);
    console.log(`  scheduler peak resident memory: ${peak.map((m) => m.toFixed(0)).join(' / ')} MiB (after start-up ${idleMiB.map((m) => m.toFixed(0)).join(' / ')} MiB)`);
    // Herald waits for its next tick (up to a second) after the minute; the limit starts at once.
    console.log(`  limit (one process, bare claims of 1,000 + addBulk, no events): ${limitSeconds.toFixed(2)} s for the same ${REPORTS} runs; Herald / limit ${(last / limitSeconds).toFixed(2)}x`);
    console.log(`  the queue alone (two processes adding ${REPORTS} jobs, half each, addBulk of 1,000, no store): ${floor.seconds.toFixed(2)} s, their CPU ${floor.cpuMs.map((m) => (m / 1000).toFixed(2)).join(' / ')} s; Herald / queue alone ${(last / floor.seconds).toFixed(2)}x`);
  } finally {
    await stopChildren(schedulers);
    await queue.close();
    await limitQueue.close();
    await api?.proc.stop();
    await store.end();
    await place.release();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
