/**
 * Benchmark: 10,000 reports due in the same minute, two `herald scheduler` processes
 * (SVC_SCHEDULER_TICK_SECONDS=1) on one store and Redis. Prints the time from the due minute until
 * the last run is queued (its BullMQ job added), the lag (job added − slot) p50/p99, how many runs
 * each scheduler made, and duplicates (runs per report and slot beyond one: must be 0). The
 * schedulers stop before the next minute. Asserts nothing.
 *   npx tsx scripts/bench/scheduler.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
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
import { Queue } from 'bullmq';

const REPORTS = Number(process.env.BENCH_REPORTS ?? 10_000);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;


async function stopAll(children: Array<ReturnType<typeof spawn>>): Promise<void> {
  await Promise.all(children.map(async (c) => {
    if (c.exitCode !== null || c.signalCode !== null) return;
    c.kill('SIGTERM');
    await new Promise((r) => c.once('exit', r));
  }));
}

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
  const schedulers: Array<ReturnType<typeof spawn>> = [];
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
    const slot = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
    await store`insert into reports (id, title, query_id, schedule_cron, schedule_timezone, next_run_at, parameters)
      select gen_random_uuid(), 'due ' || g, ${query.id}, '* * * * *', 'UTC', ${slot.toISOString()}::timestamptz, '{}'::jsonb
        from generate_series(1, ${REPORTS}) g`;
    const made = [0, 0];
    for (const i of [0, 1]) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'scheduler'], {
        cwd: ROOT, env: { ...env, PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'info', SVC_SCHEDULER_TICK_SECONDS: '1' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      schedulers.push(child);
      let out = '';
      child.stdout!.on('data', (b: Buffer) => {
        out += b.toString('utf8');
        let nl: number;
        while ((nl = out.indexOf('\n')) >= 0) {
          const line = out.slice(0, nl);
          out = out.slice(nl + 1);
          if (line.includes('"due reports queued"')) made[i]! += Number((JSON.parse(line) as { runs: number }).runs);
        }
      });
    }
    console.log(`scheduler: ${REPORTS} reports due at ${slot.toISOString()}, two scheduler processes ticking every second`);
    const queue = new Queue('runs', { connection: { url: redisUrl }, prefix: queuePrefix });
    try {
      for (;;) {
        const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'completed', 'failed', 'delayed');
        const total = Object.values(counts).reduce((a, b) => a + b, 0);
        if (total >= REPORTS) break;
        if (Date.now() > slot.getTime() + 50_000) throw new Error(`only ${total} jobs by 50 s after the due minute`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await stopAll(schedulers);
      const jobs = await queue.getJobs(['waiting', 'prioritized', 'active', 'completed', 'failed', 'delayed'], 0, -1);
      const lags = jobs.map((j) => (j.timestamp - slot.getTime()) / 1000).sort((a, b) => a - b);
      const [dup] = await store`select count(*)::int as n from (select report_id from runs group by report_id, slot having count(*) > 1) d`;
      const [runs] = await store`select count(*)::int as n, count(distinct report_id)::int as reports from runs where slot = ${slot.toISOString()}::timestamptz`;
      console.log(`  runs for the slot: ${runs!.n as number} for ${runs!.reports as number} reports; duplicates: ${dup!.n as number}; jobs: ${jobs.length}`);
      console.log(`  last run queued ${lags[lags.length - 1]!.toFixed(2)} s after the due minute`);
      console.log(`  lag (job added − slot) p50 ${quantile(lags, 0.5).toFixed(2)} s   p99 ${quantile(lags, 0.99).toFixed(2)} s`);
      console.log(`  runs made by scheduler 1: ${made[0]}, by scheduler 2: ${made[1]}`);
    } finally {
      await queue.close();
    }
  } finally {
    await stopAll(schedulers);
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
