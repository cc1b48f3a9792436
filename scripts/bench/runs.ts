/**
 * Benchmark: end-to-end runs per second of a one-row query (`select 1`) with no deliveries,
 * executed by one `herald worker` process (a child process, SVC_WORKER_CONCURRENCY 10 unless
 * BENCH_CONCURRENCY says otherwise), beside its limit measured in the same run. BENCH_ROUNDS
 * rounds (default 3), each of three phases of BENCH_RUNS (default 2000):
 *   - the limit: a BullMQ worker that does nothing (scripts/bench/noop-worker.ts, one child
 *     process, the runs queue's options: concurrency, lock, stalled checks) on the same Redis,
 *     its jobs added as the API adds runs (same job options, job id, payload, 100 at a time);
 *   - Herald's worker: N pending runs queued as the API queues them (job id = run id), timed from
 *     the first enqueue until the store shows every run finished; the worker's CPU per run from
 *     /proc (user + system of the child);
 *   - through the API: POST /api/v1/reports/{id}/run from 20 clients to `herald api` (its own
 *     process, warmed up by BENCH_WARMUP POSTs once; the same worker), timed from the first POST
 *     until every run finished, with the API process's CPU per POST;
 *   - the ceiling: issue 29's minimal worker (scripts/bench/minimal-worker.ts: one UPDATE that
 *     claims the run and reads its SQL, the query, one finishing UPDATE, progress in memory) on
 *     Herald's runs queue, N pending runs queued as for Herald's worker; the goal of 800 runs/s
 *     was set as "0.75x" its 1,096 runs/s on the machine of the issue (0.73x), so the ratio Herald / ceiling is
 *     printed beside it.
 * Then the store statements per run, counted by a proxy on loopback (support.ts countingProxy:
 * the protocol's Execute and Query messages, BEGIN and COMMIT included): the worker's for
 * BENCH_COUNTED runs (the difference between a round of 50 and one of 50 + BENCH_COUNTED, so its
 * start-up and idle polling are out), and the API's per POST (its store always goes through the
 * proxy; counted over one API phase, so the relay's passes are included).
 * Each run does the whole engine path: start, its progress, the query on a pooled connection,
 * the result file, finish, events, metrics. The in-process API has its own fresh database (also
 * the "user database" queried). Prints each round and min/median/max; asserts nothing.
 * BENCH_SNAPSHOT_TABLES=N (default 0) gives the queried connection a schema snapshot of N tables
 * of 15 columns first, as a refresh of a warehouse's schema leaves one (800: ~850 kB of JSON).
 *   npx tsx scripts/bench/runs.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import http from 'node:http';
import postgres from 'postgres';
import { createQueue, createRedis } from '../../src/infra/queue/queues.js';
import { createRunQueue, runJobSpec } from '../../src/jobs/run-report-spec.js';
import {
  benchApi, benchPlace, countingProxy, cpuMsOf, freePort, cpuMsOfCommand, quantile, queueRunsAndWait, sleep, spawnRole, spread, stopChildren, type BenchPlace,
} from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const COUNTED = Number(process.env.BENCH_COUNTED ?? 200);
const SNAPSHOT_TABLES = Number(process.env.BENCH_SNAPSHOT_TABLES ?? 0);
/**
 * Runs (jobs) each worker carries before it is measured: a worker lives for days, and its first
 * seconds are spent compiling its code (V8's optimising compilers took 35 % of a fresh Herald
 * worker's CPU over a 2,000-run phase, by `perf`). The no-op and minimal workers get the same.
 * BENCH_WARMUP=0 measures each from its start, as this bench did before 2026-12-03.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);

/** A schema snapshot as an introspection of `tables` tables of 15 columns each makes one. */
const snapshotOf = (tables: number) => ({
  tables: Array.from({ length: tables }, (_, i) => ({
    schema: 'public', name: `fact_table_${i}`, kind: 'table',
    columns: Array.from({ length: 15 }, (_c, j) => ({ name: `column_${j}`, type: j % 2 ? 'text' : 'timestamp with time zone', nullable: true })),
  })),
});
const CLIENTS = 20;

/** One of the bench's own workers (noop-worker.ts, minimal-worker.ts) as a child process; resolves once it listens. */
async function spawnBenchWorker(place: BenchPlace, script: string, env: Record<string, string>): Promise<ChildProcess> {
  const name = script.replace('-', ' ');
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', `scripts/bench/${script}.ts`], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...place.env, PATH: process.env.PATH ?? '', SVC_WORKER_CONCURRENCY: String(CONCURRENCY), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => { if (b.toString('utf8').includes(`${name} started`)) resolve(); });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)));
  });
  return child;
}

async function main(): Promise<void> {
  const place = await benchPlace();
  const store = postgres(place.dbUrl.toString(), { max: 2, onnotice: () => undefined });
  const apiProxy = await countingProxy(place.dbUrl);
  const redis = createRedis(place.redisUrl, 'client');
  const noopName = 'noop';
  const noopQueue = createQueue(redis, place.queuePrefix, noopName);
  let api: Awaited<ReturnType<typeof benchApi>> | undefined;
  const children: ChildProcess[] = [];
  try {
    api = await benchApi(place, { SVC_DATABASE_URL: apiProxy.url.toString() });
    const { queryId, connectionId } = await api.selfQuery('select 1 as one');
    if (SNAPSHOT_TABLES > 0) {
      await store`update connections set schema_snapshot = ${store.json(snapshotOf(SNAPSHOT_TABLES))}, schema_refreshed_at = now() where id = ${connectionId}`;
    }
    const report = await api.post('/api/v1/reports', { title: 'Bench', query_id: queryId });
    // BENCH_API_REPORTS=N: the API phase's clients POST to N reports in turn (default 1: every
    // POST to one report, whose row each POST's statement updates, so they take turns on its lock).
    const apiReports = [report.id];
    for (let i = 1; i < Number(process.env.BENCH_API_REPORTS ?? 1); i += 1) apiReports.push((await api.post('/api/v1/reports', { title: `Bench ${i}`, query_id: queryId })).id);
    const queue = createRunQueue(api.proc.container.enqueue);
    const jobOptions = (id: string) => ({ jobId: id, attempts: runJobSpec.attempts, backoff: { type: 'exponential', delay: runJobSpec.backoffMs } });

    /** WARMUP runs through the worker listening now, then forgotten. */
    const warmUp = async () => {
      if (WARMUP === 0) return;
      await queueRunsAndWait(store, (id) => queue.enqueue(id, report.id), report.id, WARMUP, false);
      await store`delete from runs where report_id = ${report.id}`;
    };

    const limit = async (): Promise<{ rate: number; cpuPerJob: number }> => {
      const child = await spawnBenchWorker(place, 'noop-worker', { BENCH_NOOP_QUEUE: noopName });
      try {
        await noopQueue.obliterate({ force: true });
        const jobs = async (count: number, done: number) => {
          for (let i = 0; i < count; i += 100) {
            await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => {
              const id = randomUUID();
              return noopQueue.add(runJobSpec.name, { runId: id, reportId: report.id }, jobOptions(id));
            }));
          }
          for (;;) {
            const counts = await noopQueue.getJobCounts('completed');
            if ((counts.completed ?? 0) >= done + count) break;
            await sleep(20);
          }
        };
        if (WARMUP > 0) await jobs(WARMUP, 0);
        const before = cpuMsOf(child.pid);
        const t0 = performance.now();
        await jobs(RUNS, WARMUP);
        const seconds = (performance.now() - t0) / 1000;
        return { rate: RUNS / seconds, cpuPerJob: (cpuMsOf(child.pid) - before) / RUNS };
      } finally {
        await stopChildren([child]);
      }
    };

    // `herald api` as deployed, its own process (the store through the counting proxy), for the
    // POSTs; the in-process API above only set the bench up. Warmed up as the workers are.
    const apiPort = await freePort();
    /** The POSTs' own time in the API (its request log's duration_ms), this phase's. */
    let served: number[] = [];
    const apiChild = await spawnRole('api', place, { SVC_LISTEN: `127.0.0.1:${apiPort}`, SVC_DATABASE_URL: apiProxy.url.toString() }, 'api listening', (line) => {
      const m = /"duration_ms":(\d+)/.exec(line);
      if (m && line.includes('"method":"POST"')) served.push(Number(m[1]));
    });
    children.push(apiChild);
    const post = async (count: number) => {
      let next = 0;
      await Promise.all(Array.from({ length: CLIENTS }, async () => {
        while (next < count) {
          next += 1;
          const { status, body } = await postOnce(`/api/v1/reports/${apiReports[next % apiReports.length]!}/run`, '{"deliver":false}');
          if (status !== 202) throw new Error(`POST run: ${status} ${body}`);
        }
      }));
    };
    let apiWarm = false;
    // node's own HTTP client on kept-alive connections: the clients' CPU is the bench's, not
    // Herald's, and fetch (undici) cost the bench process more per request.
    const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
    const postHeaders = api.headers;
    const postOnce = (path: string, body: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: apiPort, path, method: 'POST', agent, headers: { ...postHeaders, 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });

    const viaApi = async (): Promise<{ rate: number; postRate: number; benchCpuPerPost: number; servedP50: number; servedP99: number; apiCpuPerRun: number; statementsPerPost: number }> => {
      if (!apiWarm && WARMUP > 0) {
        await post(WARMUP);
        for (;;) {
          const [row] = await store`select count(*)::int as n from runs where report_id in ${store(apiReports)} and status in ('pending', 'running')`;
          if (row!.n === 0) break;
          await sleep(50);
        }
        await store`delete from runs where report_id in ${store(apiReports)}`;
      }
      apiWarm = true;
      served = [];
      const s0 = apiProxy.count();
      const cpu0 = cpuMsOf(apiChild.pid);
      const own0 = process.cpuUsage();
      const t0 = performance.now();
      await post(RUNS);
      const posted = performance.now();
      const own = process.cpuUsage(own0);
      const cpu = cpuMsOf(apiChild.pid) - cpu0;
      const statements = apiProxy.count() - s0;
      for (;;) {
        const [row] = await store`select count(*)::int as n from runs where report_id in ${store(apiReports)} and status in ('pending', 'running')`;
        if (row!.n === 0) break;
        await sleep(50);
      }
      const seconds = (performance.now() - t0) / 1000;
      return { rate: RUNS / seconds, postRate: RUNS / ((posted - t0) / 1000), benchCpuPerPost: (own.user + own.system) / 1000 / RUNS, servedP50: quantile([...served].sort((x, y) => x - y), 0.5), servedP99: quantile([...served].sort((x, y) => x - y), 0.99), apiCpuPerRun: cpu / RUNS, statementsPerPost: statements / RUNS };
    };

    /** The minimal worker on Herald's runs queue, for runs queued as for Herald's worker. */
    const ceiling = async (): Promise<{ rate: number; cpuPerRun: number; pgPerRun: number; statuses: string }> => {
      const child = await spawnBenchWorker(place, 'minimal-worker', { BENCH_QUERIED_URL: place.dbUrl.toString() });
      try {
        await warmUp();
        const cpu0 = cpuMsOf(child.pid);
        const pg0 = cpuMsOfCommand('postgres');
        const { seconds, statuses } = await queueRunsAndWait(store, (id) => queue.enqueue(id, report.id), report.id, RUNS, false);
        return { rate: RUNS / seconds, cpuPerRun: (cpuMsOf(child.pid) - cpu0) / RUNS, pgPerRun: (cpuMsOfCommand('postgres') - pg0) / RUNS, statuses };
      } finally {
        await stopChildren([child]);
        await store`delete from runs where report_id = ${report.id}`;
      }
    };

    console.log(`runs end to end (select 1, no deliveries, 1 worker process, concurrency ${CONCURRENCY}; ${ROUNDS} rounds of ${RUNS} runs per phase; `
      + `each worker measured after ${WARMUP} runs of its own)`
      + (SNAPSHOT_TABLES > 0 ? `; the connection's schema snapshot: ${SNAPSHOT_TABLES} tables of 15 columns` : ''));
    const rows: Array<{
      limit: number; limitCpu: number; herald: number; cpu: number; p50: number; p99: number; api: number; apiCpu: number; perPost: number; ceiling: number; ceilingCpu: number; pg: number; ceilingPg: number;
    }> = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const l = await limit();
      const worker = await spawnRole('worker', place, { SVC_WORKER_CONCURRENCY: String(CONCURRENCY) }, 'worker started');
      children.push(worker);
      await warmUp();
      const cpu0 = cpuMsOf(worker.pid);
      const pg0 = cpuMsOfCommand('postgres');
      const { seconds, statuses } = await queueRunsAndWait(store, (id) => queue.enqueue(id, report.id), report.id, RUNS, false);
      const cpu = (cpuMsOf(worker.pid) - cpu0) / RUNS;
      const pg = (cpuMsOfCommand('postgres') - pg0) / RUNS;
      const durations = (await store`select extract(epoch from finished_at - started_at) * 1000 as ms from runs
        where report_id = ${report.id} and finished_at is not null order by 1`).map((r) => Number(r.ms));
      await store`delete from runs where report_id = ${report.id}`;
      const a = await viaApi();
      await store`delete from runs where report_id in ${store(apiReports)}`;
      await stopChildren([worker]);
      children.splice(children.indexOf(worker), 1);
      const c = await ceiling();
      const herald = RUNS / seconds;
      rows.push({
        limit: l.rate, limitCpu: l.cpuPerJob, herald, cpu, p50: quantile(durations, 0.5), p99: quantile(durations, 0.99), api: a.rate, apiCpu: a.apiCpuPerRun,
        perPost: a.statementsPerPost, ceiling: c.rate, ceilingCpu: c.cpuPerRun, pg, ceilingPg: c.pgPerRun,
      });
      console.log(`  round ${round}: BullMQ no-op worker ${l.rate.toFixed(0)} jobs/s (${l.cpuPerJob.toFixed(2)} ms CPU/job)   ` +
        `Herald ${herald.toFixed(0)} runs/s = ${(herald / l.rate).toFixed(3)}x (${cpu.toFixed(2)} ms worker CPU/run, ${pg.toFixed(2)} ms PostgreSQL CPU/run, ` +
        `run p50 ${quantile(durations, 0.5).toFixed(1)} ms p99 ${quantile(durations, 0.99).toFixed(1)} ms; ${statuses})   ` +
        `through the API (${CLIENTS} clients) ${a.rate.toFixed(0)} runs/s (POSTs answered at ${a.postRate.toFixed(0)}/s, served in p50 ${a.servedP50} / p99 ${a.servedP99} ms by the API's log, ${a.apiCpuPerRun.toFixed(2)} ms CPU/POST in the API process, ${a.benchCpuPerPost.toFixed(2)} in the bench's (clients, proxy); ${a.statementsPerPost.toFixed(2)} statements/POST)   ` +
        `the issue's minimal worker ${c.rate.toFixed(0)} runs/s (${c.cpuPerRun.toFixed(2)} ms CPU/run, ${c.pgPerRun.toFixed(2)} ms PostgreSQL CPU/run; ${c.statuses}): Herald = ${(herald / c.rate).toFixed(3)}x of it`);
    }

    // The worker's statements per run, through a proxy of its own.
    const workerProxy = await countingProxy(place.dbUrl);
    const proxied: BenchPlace = { ...place, env: { ...place.env, SVC_DATABASE_URL: workerProxy.url.toString() } };
    children.push(await spawnRole('worker', proxied, { SVC_WORKER_CONCURRENCY: String(CONCURRENCY) }, 'worker started'));
    const w0 = workerProxy.count();
    await queueRunsAndWait(store, (id) => queue.enqueue(id, report.id), report.id, 50, false);
    const w1 = workerProxy.count();
    await store`delete from runs where report_id = ${report.id}`;
    await queueRunsAndWait(store, (id) => queue.enqueue(id, report.id), report.id, 50 + COUNTED, false);
    const w2 = workerProxy.count();
    await stopChildren(children.splice(0));
    await workerProxy.close();
    const perRun = ((w2 - w1) - (w1 - w0)) / COUNTED;

    const col = (f: (r: (typeof rows)[number]) => number, d: number) => spread(rows.map(f), d);
    console.log(`summary over ${ROUNDS} rounds (min / median / max):`);
    console.log(`  limit, BullMQ no-op worker:   ${col((r) => r.limit, 0)} jobs/s   (${col((r) => r.limitCpu, 2)} ms CPU per job)`);
    console.log(`  Herald worker:                ${col((r) => r.herald, 0)} runs/s`);
    console.log(`  ratio Herald / limit:         ${col((r) => r.herald / r.limit, 3)}`);
    console.log(`  worker CPU per run:           ${col((r) => r.cpu, 2)} ms`);
    console.log(`  PostgreSQL CPU per run:       ${col((r) => r.pg, 2)} ms (every postgres process on this machine: the store and the queried database)`);
    console.log(`  the issue's minimal worker:   ${col((r) => r.ceiling, 0)} runs/s   (${col((r) => r.ceilingCpu, 2)} ms CPU per run, ${col((r) => r.ceilingPg, 2)} ms PostgreSQL CPU per run)`);
    console.log(`  ratio Herald / minimal:       ${col((r) => r.herald / r.ceiling, 3)}   (the goal: 800 runs/s, set as 0.75x the minimal worker's 1,096 on the issue's machine: 0.73x)`);
    console.log(`  through the API, ${CLIENTS} clients: ${col((r) => r.api, 0)} runs/s   (ratio to the limit ${col((r) => r.api / r.limit, 3)})`);
    console.log(`  API process CPU per POST:     ${col((r) => r.apiCpu, 2)} ms (\`herald api\`, its store through the counting proxy)`);
    console.log(`  store statements per POST:    ${col((r) => r.perPost, 2)} (the API's, the relay's passes included)`);
    console.log(`  store statements per run in the worker: ${perRun.toFixed(2)} (${COUNTED} runs counted; BEGIN and COMMIT count)`);
  } finally {
    await stopChildren(children);
    await api?.proc.stop();
    await apiProxy.close();
    await noopQueue.close();
    redis.disconnect();
    await store.end();
    await place.release();
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
