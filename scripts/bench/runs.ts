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
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { Redis } from 'ioredis';
import { loadSettings } from '../../src/infra/config/settings.js';
import { createProcessLogger } from '../../src/infra/log/process-logger.js';
import { createDb } from '../../src/infra/db/client.js';
import { migrate } from '../../src/infra/db/migrate.js';
import { startProcess } from '../../src/runtime.js';
import { createRunQueue } from '../../src/jobs/run-report-spec.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

async function main(): Promise<void> {
  const base = new URL(process.env.SVC_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = `herald_bench_${randomBytes(4).toString('hex')}`;
  const adminUrl = new URL(base); adminUrl.pathname = '/postgres';
  const admin = postgres(adminUrl.toString(), { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const dbUrl = new URL(base); dbUrl.pathname = `/${name}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-bench-'));
  const redisUrl = process.env.SVC_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const queuePrefix = `bench_${randomBytes(3).toString('hex')}`;
  const env = {
    SVC_DATABASE_URL: dbUrl.toString(), SVC_REDIS_URL: redisUrl, SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn',
    SVC_LOG_FORMAT: 'json', SVC_QUEUE_PREFIX: queuePrefix,
  };
  let proc: Awaited<ReturnType<typeof startProcess>> | undefined;
  let worker: ReturnType<typeof spawn> | undefined;
  const store = postgres(dbUrl.toString(), { max: 2, onnotice: () => undefined });
  try {
    const settings = loadSettings({ ...env, SVC_LISTEN: `127.0.0.1:${await freePort()}`, SVC_ROLES: 'api' });
    const { sql } = createDb(settings.databaseUrl, { max: 1 });
    await migrate(sql);
    await sql.end();
    proc = await startProcess(settings, createProcessLogger(settings));
    const url = proc.url!;
    const setup = await fetch(`${url}/api/v1/setup`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Bench', email: 'bench@example.com', password: 'a long bench password' }),
    });
    const cookies = setup.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = ((await setup.json()) as { csrf_token: string }).csrf_token;
    const post = async (p: string, body: unknown): Promise<{ id: string }> => {
      const res = await fetch(`${url}${p}`, {
        method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookies, 'X-CSRF-Token': csrf }, body: JSON.stringify(body),
      });
      if (res.status !== 201) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string };
    };
    const connection = await post('/api/v1/connections', {
      name: 'Self', type: 'postgres', host: dbUrl.hostname, port: Number(dbUrl.port || 5432), database: name,
      username: decodeURIComponent(dbUrl.username || 'postgres'), ssl_mode: 'disable',
    });
    const query = await post('/api/v1/queries', { name: 'One row', connection_id: connection.id, sql: 'select 1 as one' });
    const report = await post('/api/v1/reports', { title: 'Bench', query_id: query.id });

    // One worker process; its start-up is not measured.
    worker = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'worker'], {
      cwd: ROOT, env: { ...env, PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'info', SVC_WORKER_CONCURRENCY: String(CONCURRENCY) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      worker!.stdout!.on('data', (b: Buffer) => { out += b.toString('utf8'); if (out.includes('worker started')) resolve(); });
      worker!.once('exit', (code) => reject(new Error(`the worker exited (${code})\n${out}`)));
    });
    worker.stdout!.resume();

    const ids = (await store`insert into runs (id, report_id, trigger, status, deliver, created_at, updated_at)
      select gen_random_uuid(), ${report.id}, 'manual', 'pending', false, now(), now() from generate_series(1, ${RUNS})
      returning id`).map((r) => r.id as string);
    const queue = createRunQueue(proc.container.enqueue);
    const t0 = performance.now();
    for (let i = 0; i < ids.length; i += 100) await Promise.all(ids.slice(i, i + 100).map((id) => queue.enqueue(id, report.id as string)));
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
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((r) => worker!.once('exit', r));
    }
    await proc?.stop();
    await store.end();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    const redis = new Redis(redisUrl);
    const keys = await redis.keys(`${queuePrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => { console.error(err); process.exit(1); });
