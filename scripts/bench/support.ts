/**
 * What every benchmark needs: its own fresh database, queue prefix and data folder (all removed
 * again, whatever failed), an in-process API on them with a signed-in admin, child processes of
 * the other roles, and quantiles.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { Redis } from 'ioredis';
import { loadSettings, type Settings } from '../../src/infra/config/settings.js';
import { createProcessLogger } from '../../src/infra/log/process-logger.js';
import { createDb } from '../../src/infra/db/client.js';
import { migrate } from '../../src/infra/db/migrate.js';
import { startProcess, type RunningProcess } from '../../src/main/runtime.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const quantile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface BenchPlace {
  /** The database's name and URL (also usable as the "user database" a query reads). */
  name: string;
  dbUrl: URL;
  redisUrl: string;
  queuePrefix: string;
  /** The SVC_* settings of this place (store, Redis, prefix, data folder, json logs at warn). */
  env: Record<string, string>;
  release(): Promise<void>;
}

/** A fresh, migrated database, queue prefix and data folder for one benchmark. */
export async function benchPlace(): Promise<BenchPlace> {
  const base = new URL(process.env.SVC_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = `herald_bench_${randomBytes(4).toString('hex')}`;
  const adminUrl = new URL(base); adminUrl.pathname = '/postgres';
  const admin = postgres(adminUrl.toString(), { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const dbUrl = new URL(base); dbUrl.pathname = `/${name}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'herald-bench-'));
  const redisUrl = process.env.SVC_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const queuePrefix = `bench_${randomBytes(3).toString('hex')}`;
  const { sql } = createDb(dbUrl.toString(), { max: 1 });
  await migrate(sql);
  await sql.end();
  return {
    name, dbUrl, redisUrl, queuePrefix,
    env: {
      SVC_DATABASE_URL: dbUrl.toString(), SVC_REDIS_URL: redisUrl, SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn',
      SVC_LOG_FORMAT: 'json', SVC_QUEUE_PREFIX: queuePrefix,
    },
    async release() {
      // Leave nothing behind, whatever failed: the database, the queues' keys, the data folder
      // (BENCH_KEEP_DB=1 keeps the database, to look at its plans afterwards).
      if (process.env.BENCH_KEEP_DB === '1') console.log(`kept database ${name}`);
      else await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
      const redis = new Redis(redisUrl);
      const keys = await redis.keys(`${queuePrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface BenchApi {
  proc: RunningProcess;
  settings: Settings;
  url: string;
  /** POST as the signed-in admin; answers the created resource (201 expected). */
  post(path: string, body: unknown): Promise<{ id: string }>;
  /** The signed-in admin's headers for a write (cookie, CSRF token, JSON). */
  headers: Record<string, string>;
  /** A connection to the place's own database and a query on it. */
  selfQuery(sql: string): Promise<{ connectionId: string; queryId: string }>;
}

/** The first admin of a Herald answering at `url`, signed in: POST as them, and a query on the place's own database. */
export async function adminOf(url: string, place: BenchPlace): Promise<Pick<BenchApi, 'selfQuery' | 'headers'> & {
  /** POST as the admin; answers the created resource (201 expected) with its token when it has one. */
  post(path: string, body: unknown): Promise<{ id: string; token?: string }>;
}> {
  const setup = await fetch(`${url}/api/v1/setup`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Bench', email: 'bench@example.com', password: 'a long bench password' }),
  });
  const cookies = setup.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const csrf = ((await setup.json()) as { csrf_token: string }).csrf_token;
  const post = async (p: string, body: unknown): Promise<{ id: string; token?: string }> => {
    const res = await fetch(`${url}${p}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookies, 'X-CSRF-Token': csrf }, body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string; token?: string };
  };
  return {
    post, headers: { 'Content-Type': 'application/json', Cookie: cookies, 'X-CSRF-Token': csrf },
    async selfQuery(sql) {
      const connection = await post('/api/v1/connections', {
        name: 'Self', type: 'postgres', host: place.dbUrl.hostname, port: Number(place.dbUrl.port || 5432), database: place.name,
        username: decodeURIComponent(place.dbUrl.username || 'postgres'), ssl_mode: 'disable',
      });
      const query = await post('/api/v1/queries', { name: 'Bench query', connection_id: connection.id, sql });
      return { connectionId: connection.id, queryId: query.id };
    },
  };
}

/** The API role in this process, on the place, with its first admin signed in. */
export async function benchApi(place: BenchPlace, env: Record<string, string> = {}): Promise<BenchApi> {
  const settings = loadSettings({ ...place.env, SVC_LISTEN: `127.0.0.1:${await freePort()}`, SVC_ROLES: 'api', ...env });
  const proc = await startProcess(settings, createProcessLogger(settings));
  const url = proc.url!;
  return { proc, settings, url, ...(await adminOf(url, place)) };
}

/**
 * How node starts Herald's command: BENCH_BUILT=1 runs the built one (dist/src/cli.js, what `make
 * run` starts; `npm run build` first), else the sources through tsx.
 */
export const heraldEntry = (): string[] => (process.env.BENCH_BUILT === '1' ? ['dist/src/cli.js'] : ['--import', 'tsx', 'src/cli.ts']);

/**
 * `herald <role>` as a child process on the place; resolves once its log says `ready`.
 * BENCH_NODE_ARGS adds arguments to its node (for instance --cpu-prof --cpu-prof-dir=/tmp/prof).
 */
export async function spawnRole(role: 'worker' | 'scheduler' | 'api', place: BenchPlace, env: Record<string, string>, ready: string,
  onLine: (line: string) => void = () => undefined): Promise<ChildProcess> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...nodeArgs, ...heraldEntry(), role], {
    cwd: ROOT, env: { ...place.env, PATH: process.env.PATH ?? '', SVC_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString('utf8');
      seen += b.toString('utf8');
      if (seen.includes(ready)) { seen = ''; resolve(); }
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        onLine(out.slice(0, nl));
        out = out.slice(nl + 1);
      }
    });
    child.once('exit', (code) => reject(new Error(`herald ${role} exited (${code})`)));
  });
  return child;
}

/** SIGTERM, and wait for the exit. */
export async function stopChildren(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map(async (c) => {
    if (c.exitCode !== null || c.signalCode !== null) return;
    c.kill('SIGTERM');
    await new Promise((r) => c.once('exit', r));
  }));
}

/**
 * Makes `count` pending runs of a report in the store and enqueues them as the API does (100 at a
 * time), then waits until every one has finished; answers the seconds from the first enqueue,
 * the enqueueing time and the count of runs by status.
 */
export async function queueRunsAndWait(store: postgres.Sql, enqueue: (runId: string) => Promise<void>, reportId: string, count: number, deliver: boolean)
  : Promise<{ seconds: number; enqueueSeconds: number; statuses: string }> {
  const ids = (await store`insert into runs (id, report_id, trigger, status, deliver, created_at, updated_at)
    select gen_random_uuid(), ${reportId}, 'manual', 'pending', ${deliver}, now(), now() from generate_series(1, ${count})
    returning id`).map((r) => r.id as string);
  const t0 = performance.now();
  for (let i = 0; i < ids.length; i += 100) await Promise.all(ids.slice(i, i + 100).map((id) => enqueue(id)));
  const enqueueSeconds = (performance.now() - t0) / 1000;
  for (;;) {
    const [row] = await store`select count(*)::int as n from runs where report_id = ${reportId} and status not in ('pending', 'running')`;
    if (row!.n >= count) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - t0) / 1000;
  const byStatus = await store`select status, count(*)::int as n from runs where report_id = ${reportId} group by status order by status`;
  return { seconds, enqueueSeconds, statuses: byStatus.map((r) => `${r.status as string} ${r.n as number}`).join(', ') };
}

/**
 * A TCP proxy to the store that counts the statements its clients execute: in the Postgres
 * protocol every message from the client after the start-up one is a type byte and a length;
 * an Execute ('E') runs one statement of the extended protocol, a Query ('Q') one simple query.
 */
export async function countingProxy(target: URL) {
  let statements = 0;
  let writes = 0;
  // Per statement text (its first 90 characters): how many times it was executed.
  const byText = new Map<string, number>();
  const tally = (text: string) => {
    const key = text.replace(/\s+/g, ' ').slice(0, 90);
    byText.set(key, (byText.get(key) ?? 0) + 1);
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    let started = false;
    let pending = Buffer.alloc(0);
    const named = new Map<string, string>();
    let bound = '';
    const cstring = (b: Buffer, at: number): [string, number] => {
      const end = b.indexOf(0, at);
      return [b.toString('utf8', at, end), end + 1];
    };
    client.on('data', (chunk: Buffer) => {
      writes += 1;
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(length);
          // An SSL or GSS request comes before the start-up message itself.
          if (code !== 80877103 && code !== 80877104) started = true;
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const type = String.fromCharCode(pending[0]!);
        if (type === 'E' || type === 'Q') statements += 1;
        const body = pending.subarray(5, 1 + length);
        if (type === 'P') {
          const [name, at] = cstring(body, 0);
          named.set(name, cstring(body, at)[0]);
        } else if (type === 'B') {
          const [, at] = cstring(body, 0);
          bound = named.get(cstring(body, at)[0]) ?? '?';
        } else if (type === 'E') tally(bound);
        else if (type === 'Q') tally(cstring(body, 0)[0]);
        pending = pending.subarray(1 + length);
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url, count: () => statements,
    /** How many writes the clients made (each at least one round trip's start). */
    writes: () => writes,
    /** The statements executed so far, by text, most frequent first. */
    texts: () => [...byText].sort((a, b) => b[1] - a[1]),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * CPU milliseconds (user + system) of every process on this machine whose command is `name`
 * (`postgres`: the server and its backends, when PostgreSQL runs here), with the time of the
 * children they reaped (a backend that exits during a phase is reaped by the server, so its time
 * stays counted), for a difference across a phase; NaN when none runs here. Every such process
 * counts: measure with nothing else using that server.
 */
export function cpuMsOfCommand(name: string): number {
  let total = 0;
  let found = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== name) continue;
      // utime, stime, cutime, cstime: the 12th to the 15th fields after the command name.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / 100;
      found = true;
    } catch {
      // gone meanwhile
    }
  }
  return found ? total : NaN;
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere. */
export function cpuMsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return NaN;
  }
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
/** "min … median … max" of repeated figures. */
export const spread = (xs: number[], digits: number) =>
  `min ${Math.min(...xs).toFixed(digits)} / median ${median(xs).toFixed(digits)} / max ${Math.max(...xs).toFixed(digits)}`;
