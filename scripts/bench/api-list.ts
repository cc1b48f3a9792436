/**
 * Benchmark: GET /api/v1/reports?limit=50 with an API key, the same with If-None-Match (the
 * client's copy is current: 304, no body), GET /health/live, and what a pipeline waiting for a run
 * polls: GET /api/v1/runs/{id} and GET /api/v1/runs?limit=50, each plain and with If-None-Match, at
 * BENCH_CONNECTIONS (default 100) keep-alive connections, Herald against its limit: a bare
 * Express app serving the byte-identical body (same status, same Content-Type), measured in the
 * same run by the same load generator.
 *
 * Three processes, so that nobody measures itself: `herald api` (a child, log at info to
 * /dev/null, as deployed), the limit (a child: this file with --limit-server), and the load
 * generator (a child: this file with --load; node:http with a keep-alive Agent, one request at a
 * time per connection, BENCH_SECONDS per measurement after a one-second warm-up). The workspace
 * holds 50 reports with schedules of a few kinds, so the list answers 50 items (~27 KB), and 50
 * manual runs (queued, no worker: pending).
 * Measurements alternate limit and Herald, BENCH_ROUNDS times (default 3); printed per round:
 * req/s, p50, p99 for both and the ratio Herald/limit of req/s; then min/median/max over rounds.
 * Each Herald line also says what share of its answers were bytes the API kept by their ETag
 * (svc_answer_cache_total from its /metrics, warm-up included; one API process only, and none
 * with SVC_METRICS_TOKEN set; SVC_ANSWER_CACHE_MB, which BENCH_ANSWER_CACHE_MB sets, 0 keeps none).
 * `list-churn` is the list while one of its reports changes without pause (a loop of one-row
 * UPDATEs on its own connection, on the same cores, moving the report's version): a mix of kept
 * answers and misses (about half each here), each miss paying the versions statement and the read.
 * Asserts nothing. BENCH_NODE_ARGS adds arguments to Herald's node (--cpu-prof --cpu-prof-dir=DIR);
 * BENCH_BUILT=1 runs Herald built (dist/src/cli.js, as `make run` does; `npm run build` first)
 * instead of its sources through tsx.
 *   npx tsx scripts/bench/api-list.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express from 'express';
import postgres from 'postgres';
import { adminOf, benchPlace, freePort, heraldEntry, quantile, sleep, spread as spreadOf, stopChildren } from './support.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const spread = (xs: number[], digits = 0) => spreadOf(xs, digits);

// ---------------------------------------------------------------------------------------------
// The limit: bare Express answering the bytes it was given, at the same paths.

function limitServer(): void {
  const port = Number(process.env.BENCH_LIMIT_PORT);
  const bodies = JSON.parse(process.env.BENCH_LIMIT_BODIES!) as Record<string, { type: string; body: string; etag?: string }>;
  const app = express();
  for (const [path, { type, body, etag }] of Object.entries(bodies)) {
    const bytes = Buffer.from(body, 'base64');
    // With Herald's ETag, express answers a matching If-None-Match with 304 (req.fresh), as Herald does.
    app.get(path, (_req, res) => { res.setHeader('Content-Type', type); if (etag) res.setHeader('ETag', etag); res.send(bytes); });
  }
  const server = app.listen(port, '127.0.0.1', () => process.stdout.write('limit listening\n'));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

// ---------------------------------------------------------------------------------------------
// The load generator: CONNECTIONS loops, each one request at a time on its own kept-alive socket.

async function load(): Promise<void> {
  const url = new URL(process.env.BENCH_LOAD_URL!);
  const headers = JSON.parse(process.env.BENCH_LOAD_HEADERS ?? '{}') as Record<string, string>;
  const expected = Number(process.env.BENCH_LOAD_STATUS ?? 200);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS, maxFreeSockets: CONNECTIONS });
  const get = () => new Promise<number>((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, agent, headers }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode!));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  const latencies: number[] = [];
  let errors = 0;
  let measuring = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const t = performance.now();
      const status = await get();
      if (measuring) {
        if (status !== expected) errors += 1;
        latencies.push(performance.now() - t);
      }
    }
  };
  const loops = Array.from({ length: CONNECTIONS }, loop);
  await sleep(1000);
  measuring = true;
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  measuring = false;
  const seconds = (performance.now() - t0) / 1000;
  stop = true;
  await Promise.all(loops);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({ rps: latencies.length / seconds, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), errors })}\n`);
}

interface Figures { rps: number; p50: number; p99: number; errors: number; cpuMsPerRequest?: number; kept?: number }

/** svc_answer_cache_total by outcome, from the API's /metrics. */
async function keptAnswers(url: string): Promise<{ hit: number; miss: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const count = (outcome: string) => Number(text.split('\n').find((l) => l.startsWith(`svc_answer_cache_total{outcome="${outcome}"}`))?.split(' ').pop() ?? 0);
  return { hit: count('hit'), miss: count('miss') };
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; undefined elsewhere). */
function cpuMsOf(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in ticks of 1/100 s
  } catch {
    return undefined;
  }
}

function spawnChild(args: string[], env: Record<string, string>, stdout: 'pipe' | 'ignore' = 'ignore'): ChildProcess & { exited: Promise<never> } {
  const herald = args[0] === 'src/cli.ts';
  const nodeArgs = herald ? (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '') : [];
  const entry = herald ? [...heraldEntry(), ...args.slice(1)] : ['--import', 'tsx', ...args];
  const child = spawn(process.execPath, [...nodeArgs, ...entry], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', stdout, 'inherit'],
  });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code})`))));
  exited.catch(() => undefined);
  return Object.assign(child, { exited });
}

async function ready(child: { exited: Promise<never> }, url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await Promise.race([
      fetch(url).then(async (r) => { await r.arrayBuffer(); return r.status === 200; }, () => false),
      child.exited,
    ]);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer within 60 s`);
    await sleep(200);
  }
}

/** One measurement; with `pid`, also the CPU that process spent per request (warm-up included: an upper bound). */
async function measure(url: string, headers: Record<string, string>, pid?: number, status = 200): Promise<Figures> {
  const cpu0 = cpuMsOf(pid);
  const child = spawnChild([fileURLToPath(import.meta.url), '--load'], {
    BENCH_LOAD_URL: url, BENCH_LOAD_HEADERS: JSON.stringify(headers), BENCH_CONNECTIONS: String(CONNECTIONS), BENCH_SECONDS: String(SECONDS),
    BENCH_LOAD_STATUS: String(status),
  }, 'pipe');
  let out = '';
  child.stdout!.on('data', (b: Buffer) => { out += b.toString('utf8'); });
  await new Promise((r) => child.once('exit', r));
  const figures = JSON.parse(out) as Figures;
  const cpu1 = cpuMsOf(pid);
  // The load generator ran for a one-second warm-up plus SECONDS at about the measured rate.
  if (cpu0 !== undefined && cpu1 !== undefined) figures.cpuMsPerRequest = (cpu1 - cpu0) / (figures.rps * (SECONDS + 1));
  return figures;
}

const line = (label: string, f: Figures) =>
  `${label.padEnd(9)} ${String(Math.round(f.rps)).padStart(6)} req/s  p50 ${f.p50.toFixed(1).padStart(6)} ms  p99 ${f.p99.toFixed(1).padStart(6)} ms${f.cpuMsPerRequest !== undefined ? `  CPU ${f.cpuMsPerRequest.toFixed(3)} ms/request` : ''}${f.kept !== undefined ? `  kept answers ${(f.kept * 100).toFixed(0)} %` : ''}${f.errors ? `  ${f.errors} of another status` : ''}`;

async function main(): Promise<void> {
  const place = await benchPlace();
  const children: ChildProcess[] = [];
  try {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const herald = spawnChild(['src/cli.ts', 'api'], { ...place.env, SVC_LOG_LEVEL: 'info', SVC_LISTEN: `127.0.0.1:${port}`, ...(process.env.SVC_API_PROCESSES ? { SVC_API_PROCESSES: process.env.SVC_API_PROCESSES } : {}), ...(process.env.SVC_HEAP_SETTLE ? { SVC_HEAP_SETTLE: process.env.SVC_HEAP_SETTLE } : {}), ...(process.env.BENCH_ANSWER_CACHE_MB ? { SVC_ANSWER_CACHE_MB: process.env.BENCH_ANSWER_CACHE_MB } : {}) });
    children.push(herald);
    await ready(herald, `${url}/health/live`);
    const { post: asAdmin, selfQuery, headers: adminHeaders } = await adminOf(url, place);
    const { token } = await asAdmin('/api/v1/api-keys', { name: 'bench', scope: 'read' });
    const auth = { Authorization: `Bearer ${token!}` };
    const query = { id: (await selfQuery('select 1 as one')).queryId };
    const crons = ['0 8 * * 1-5', '*/15 * * * *', '30 6 1 * *', '0 0 * * 0', '0 */2 * * *'];
    const zones = ['Europe/Berlin', 'UTC', 'America/New_York'];
    for (let i = 0; i < 50; i += 1) {
      await asAdmin('/api/v1/reports', {
        title: `Bench report ${i}`, description: 'A report of the benchmark, with a description of ordinary length.', query_id: query.id,
        schedule: { cron: crons[i % crons.length], timezone: zones[i % zones.length] },
      });
    }

    const reports = (await (await fetch(`${url}/api/v1/reports?limit=50`, { headers: auth })).json()) as { items: Array<{ id: string }> };
    let runId = '';
    for (const r of reports.items) {
      const res = await fetch(`${url}/api/v1/reports/${r.id}/run`, { method: 'POST', headers: adminHeaders, body: '{}' });
      if (res.status !== 202) throw new Error(`POST run: ${res.status} ${await res.text()}`);
      runId = ((await res.json()) as { id: string }).id;
    }

    // The bytes Herald answers, for the limit to answer as they are.
    const listPath = '/api/v1/reports?limit=50';
    const runPath = `/api/v1/runs/${runId}`;
    const runsPath = '/api/v1/runs?limit=50';
    const bodies: Record<string, { type: string; body: string; etag?: string }> = {};
    for (const [path, headers] of [[listPath, auth], ['/health/live', {}], [runPath, auth], [runsPath, auth]] as const) {
      const res = await fetch(`${url}${path}`, { headers });
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      const etag = res.headers.get('etag') ?? undefined;
      bodies[path.split('?')[0]!] = { type: res.headers.get('content-type')!, body: Buffer.from(await res.arrayBuffer()).toString('base64'), ...(etag ? { etag } : {}) };
    }
    const listTag = bodies['/api/v1/reports']!.etag;
    if (!listTag) throw new Error('the list answered no ETag');
    const listBytes = Buffer.from(bodies['/api/v1/reports']!.body, 'base64').length;
    const limitPort = await freePort();
    const limit = spawnChild([fileURLToPath(import.meta.url), '--limit-server'], { BENCH_LIMIT_PORT: String(limitPort), BENCH_LIMIT_BODIES: JSON.stringify(bodies) });
    children.push(limit);
    await ready(limit, `http://127.0.0.1:${limitPort}/health/live`);
    const limitUrl = `http://127.0.0.1:${limitPort}`;

    console.log(`api-list: ${CONNECTIONS} keep-alive connections, ${SECONDS} s per measurement, ${ROUNDS} rounds; list body ${listBytes} bytes (50 reports)`);
    const results: Record<string, { herald: Figures[]; limit: Figures[] }> = {};
    // BENCH_TARGETS=list, =list-churn, =304, =live, =run, =run-304, =runs, =runs-304 (or a comma-separated choice) measures some of them (e.g. under BENCH_NODE_ARGS=--cpu-prof).
    const only = process.env.BENCH_TARGETS;
    const targets: Array<{ id: string; name: string; path: string; headers: Record<string, string>; limitHeaders: Record<string, string>; status: number; churn?: boolean }> = [
      { id: 'list', name: 'GET /api/v1/reports?limit=50 (API key)', path: listPath, headers: auth, limitHeaders: {} as Record<string, string>, status: 200 },
      { id: 'list-churn', name: 'GET /api/v1/reports?limit=50 (API key) while a report on it changes without pause', path: listPath, headers: auth, limitHeaders: {} as Record<string, string>, status: 200, churn: true },
      // The client's copy is current: If-None-Match with the list's ETag, answered 304 with no body.
      { id: '304', name: 'GET /api/v1/reports?limit=50 (API key, If-None-Match: 304)', path: listPath, headers: { ...auth, 'If-None-Match': listTag }, limitHeaders: { 'If-None-Match': listTag }, status: 304 },
      { id: 'live', name: 'GET /health/live', path: '/health/live', headers: {}, limitHeaders: {} as Record<string, string>, status: 200 },
      ...[['run', 'GET /api/v1/runs/{id}', runPath], ['runs', 'GET /api/v1/runs?limit=50', runsPath]].flatMap(([id, name, path]) => {
        const tag = bodies[path!.split('?')[0]!]!.etag!;
        return [
          { id: id!, name: `${name!} (API key)`, path: path!, headers: auth, limitHeaders: {} as Record<string, string>, status: 200 },
          { id: `${id!}-304`, name: `${name!} (API key, If-None-Match: 304)`, path: path!, headers: { ...auth, 'If-None-Match': tag }, limitHeaders: { 'If-None-Match': tag }, status: 304 },
        ];
      }),
    ].filter((t) => !only || only.split(',').includes(t.id));
    for (let r = 1; r <= ROUNDS; r += 1) {
      for (const t of targets) {
        const l = await measure(`${limitUrl}${t.path}`, t.limitHeaders, limit.pid, t.status);
        const kept0 = await keptAnswers(url);
        const churn = t.churn ? changeWithoutPause(place.dbUrl.toString(), reports.items[0]!.id) : undefined;
        const h = await measure(`${url}${t.path}`, t.headers, herald.pid, t.status);
        const changes = await churn?.stop();
        const kept1 = await keptAnswers(url);
        const lookups = kept1.hit + kept1.miss - kept0.hit - kept0.miss;
        if (lookups > 0) h.kept = (kept1.hit - kept0.hit) / lookups;
        (results[t.name] ??= { herald: [], limit: [] }).limit.push(l);
        results[t.name]!.herald.push(h);
        console.log(`round ${r} ${t.name}`);
        console.log(`  ${line('limit', l)}`);
        console.log(`  ${line('Herald', h)}   ratio ${(h.rps / l.rps).toFixed(3)}x`);
        if (changes !== undefined) console.log(`  (${changes} changes of the report while Herald was measured)`);
      }
    }
    console.log(`summary over ${ROUNDS} rounds (min / median / max):`);
    for (const t of targets) {
      const { herald: h, limit: l } = results[t.name]!;
      console.log(`  ${t.name}`);
      console.log(`    limit   req/s ${spread(l.map((f) => f.rps))};  p99 ${spread(l.map((f) => f.p99), 1)} ms`);
      console.log(`    Herald  req/s ${spread(h.map((f) => f.rps))};  p99 ${spread(h.map((f) => f.p99), 1)} ms`);
      console.log(`    ratio Herald/limit (req/s, round by round) ${spread(h.map((f, i) => f.rps / l[i]!.rps), 3)}`);
      if (h.every((f) => f.cpuMsPerRequest !== undefined)) {
        console.log(`    CPU per request: Herald ${spread(h.map((f) => f.cpuMsPerRequest!), 3)} ms, limit ${spread(l.map((f) => f.cpuMsPerRequest!), 3)} ms`);
      }
    }
  } finally {
    await stopChildren(children);
    await place.release();
  }
}

/**
 * One report's version moved by a loop of UPDATEs on a connection of its own, until stopped, then
 * put back (the page's versions, and so its tag, are the ones the other targets ask with again);
 * answers how many changes.
 */
function changeWithoutPause(dbUrl: string, reportId: string): { stop(): Promise<number> } {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => undefined });
  let stopping = false;
  let changes = 0;
  const loop = (async () => {
    const [{ version }] = await sql<[{ version: number }]>`select version from reports where id = ${reportId}`;
    while (!stopping) {
      await sql`update reports set version = version + 1 where id = ${reportId}`;
      changes += 1;
    }
    await sql`update reports set version = ${version} where id = ${reportId}`;
  })();
  return { async stop() { stopping = true; await loop; await sql.end(); return changes; } };
}

if (process.argv.includes('--limit-server')) limitServer();
else if (process.argv.includes('--load')) load().catch((err: unknown) => { console.error(err); process.exit(1); });
else main().catch((err: unknown) => { console.error(err); process.exit(1); });
