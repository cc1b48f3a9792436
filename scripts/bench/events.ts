/**
 * Benchmark: the time from a committed change to the event on an SSE client, for GET
 * /api/v1/events with BENCH_CLIENTS (default 1,000) clients at once, and the same for a bare
 * limit: an Express SSE server that forwards what is published on Redis, with nothing else to do.
 *
 * Herald runs as child processes, as a multi-process deployment runs it: `herald api` (its log
 * at info goes to /dev/null), plus an idle `herald scheduler` and `herald worker`, so that
 * whatever role publishes the events (today the API itself, after its commit; with an outbox,
 * a relay in whichever role it lands) is running; and so that the bench's clients do not share
 * Herald's event loop. The limit server is one more child process (this file with
 * --limit-server; not a file of its own, since `make bench` runs every file here). The bench
 * process holds all the clients (node:http, one socket each, the "event:/id:/data:" blocks
 * parsed here) and makes the changes.
 *
 * One round: BENCH_CHANGES changes (default 200) at a steady BENCH_RATE per second (default
 * 20), one after the other (the next starts at its time slot or when the previous answered,
 * whichever is later). For Herald a change is an API call with a write API key that emits
 * report.updated: in turn a report created, paused, resumed. The change has committed when its
 * HTTP answer arrives (the handler answers after its transaction), so the answer's arrival is the
 * "commit" time; the request's start is printed too as an upper bound that includes the commit.
 * For the limit a change is a POST to the bare server, which makes the same change in the store
 * as bare as it goes (postgres.js, no layers: in one transaction the report inserted, or locked,
 * read and updated, and its event inserted; tables of its own in the bench's database), then
 * PUBLISHes a payload of the same shape on a Redis channel of its own and answers; the answer's
 * arrival is the "commit" time. (Before 2026-12-03 evening the limit's change was the PUBLISH
 * alone, answered in 1–2 ms: no limit for the POST's own time.) For every client × change the arrival of the
 * event is the time its last byte came off the socket in this process (recorded first thing in
 * the 'data' handler; parsed only once the round's events have had QUIET_MS to arrive, since
 * parsing them all holds the event loop). Printed per round: p50/p99/max of (arrival − commit)
 * over all client × change pairs, how many events each client got (all must get all), and how
 * many pairs arrived before the answer (the current code publishes before it answers, so the
 * event can win the race). Rounds alternate Herald and limit (BENCH_ROUNDS each, default 3) on
 * the same open connections, so that both see the same machine; the summary prints
 * min/median/max over rounds and the ratio Herald/limit of p50 and p99 round by round.
 *
 * The clients and the change-maker share this process's event loop: reading 1,000 sockets per
 * event takes a few milliseconds here, in both measurements alike, which is one reason to read
 * the ratio beside the absolute figures. p99 is 2 of the 200 changes: one stall of the shared
 * cores (another process, a collection) sets it, in Herald's rounds and the limit's alike, so on
 * a busy machine p50 and the p50 ratio are the steadier figures. About 1.5 minutes with the
 * defaults. Asserts nothing.
 *
 * The clients live in BENCH_CLIENT_PROCESSES child processes (default 4; this file with
 * --clients), each holding its share of Herald's and of the limit's streams and stamping
 * arrivals on the machine's clock (performance.timeOrigin + now(), comparable across processes):
 * one process reading 10,000 sockets is itself the bottleneck (it measured the limit at p99 5.5 s).
 * Also printed: how long the changes' own requests took (the POST answered while its event fans
 * out to every stream: p50/p99 per round, Herald's beside the limit's and their ratio), and the API process's resident memory before the
 * clients connected, with them connected, and after the rounds.
 *   BENCH_CLIENTS=10000 BENCH_RATE=2 BENCH_CHANGES=30 npx tsx scripts/bench/events.ts
 * BENCH_API_LOG=FILE keeps Herald's log in FILE: its request lines carry the server's own duration_ms.
 * BENCH_WARMUP changes (default 6) are made on each side before the streams open, counted nowhere;
 * BENCH_ANSWERS=1 prints each change's answer time in order.
 * BENCH_SETTLE_MS (default 2,000) is the pause before a round's first change (BENCH_SETTLE_MS=0: none, as before 2026-12-03).
 * BENCH_BUILT=1 runs Herald's built processes (dist/src/cli.js, what `make run` starts; run
 * `npm run build` first) instead of the sources through tsx. tsx compiles with esbuild's keepNames,
 * which names every function a closure makes at run time with a property of its own: about 3 KB
 * more heap per open stream (a heap snapshot of 3,000 streams: 23.5 against 20.5 KB each).
 *   npx tsx scripts/bench/events.ts   (needs SVC_DATABASE_URL / SVC_REDIS_URL; `make bench` sets them)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { adminOf, benchPlace, freePort, heraldEntry, quantile, sleep, spawnRole, spread as spreadOf, stopChildren } from './support.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Changes made on each side before the rounds (BENCH_WARMUP, default 6: each kind twice). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 6);
const CLIENT_PROCESSES = Number(process.env.BENCH_CLIENT_PROCESSES ?? 4);
/** The machine's clock in ms, comparable between this process and the client processes. */
const now = () => performance.timeOrigin + performance.now();
/** How long a round waits, after its last change answered, for every client to have every event. */
const DRAIN_MS = 15_000;
/** How long a round leaves the clients alone after its last change, before parsing what came. */
const QUIET_MS = 2_000;
/**
 * How long a round waits before its first change (BENCH_SETTLE_MS, default 2,000): the previous
 * round's results were just parsed and sorted in the client processes and this one, and their
 * garbage collected; a first change sent into that measured the bench's own CPU, not the streams.
 */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 2_000);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const spread = (xs: number[], digits = 1) => spreadOf(xs, digits);

// ---------------------------------------------------------------------------------------------
// The limit: a bare Express SSE server forwarding every message of one Redis channel.

async function limitServer(): Promise<void> {
  const port = Number(process.env.BENCH_LIMIT_PORT);
  const channel = process.env.BENCH_LIMIT_CHANNEL!;
  const clients = new Set<express.Response>();
  const app = express();
  app.get('/health', (_req, res) => { res.end('ok'); });
  // The change: what Herald's store does for one, written bare (postgres.js, no layers): in one
  // transaction the report inserted, or locked, read and updated, and its event inserted; then
  // the event published and the answer sent.
  const sql = postgres(process.env.SVC_DATABASE_URL!, { max: 4, onnotice: () => undefined });
  await sql`create table if not exists bench_limit_reports (id uuid primary key, title text not null, paused boolean not null, version int not null, updated_at timestamptz not null)`;
  await sql`create table if not exists bench_limit_events (id bigserial primary key, type text not null, payload jsonb not null, created_at timestamptz not null default now())`;
  app.post('/changes/:id/:change', (req, res, next) => {
    const { id, change } = req.params;
    const data = { id, change, next_run_at: null };
    sql.begin(async (tx) => {
      if (change === 'created') {
        await tx`insert into bench_limit_reports values (${id}, ${`Bench ${id}`}, false, 1, now()) returning *`;
      } else {
        const [locked] = await tx`select id from bench_limit_reports where id = ${id} for update`;
        if (!locked) throw new Error(`no report ${id}`);
        await tx`select * from bench_limit_reports where id = ${id}`;
        await tx`update bench_limit_reports set paused = ${change === 'paused'}, version = version + 1, updated_at = now() where id = ${id} returning *`;
      }
      await tx`insert into bench_limit_events (type, payload) values ('report.updated', ${tx.json(data)})`;
    }).then(async () => {
      await publisherOf.publish(channel, JSON.stringify({ type: 'report.updated', data }));
      res.status(change === 'created' ? 201 : 200).json(data);
    }, next);
  });
  app.get('/events', (req, res) => {
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-store, no-transform');
    res.flushHeaders();
    res.write('retry: 3000\n\n');
    clients.add(res);
    req.on('close', () => clients.delete(res));
  });
  let next = 1;
  const publisherOf = new Redis(process.env.SVC_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const subscriber = new Redis(process.env.SVC_REDIS_URL ?? 'redis://127.0.0.1:6379');
  subscriber.on('message', (_channel: string, message: string) => {
    const e = JSON.parse(message) as { type: string; data: unknown };
    const text = `event: ${e.type}\nid: ${next++}\ndata: ${JSON.stringify(e.data)}\n\n`;
    for (const res of clients) res.write(text);
  });
  await subscriber.subscribe(channel);
  const server = app.listen(port, '127.0.0.1', () => process.stdout.write('limit server listening\n'));
  process.on('SIGTERM', () => {
    for (const res of clients) res.end();
    subscriber.disconnect();
    publisherOf.disconnect();
    server.close(() => { void sql.end().then(() => process.exit(0)); });
  });
}

// ---------------------------------------------------------------------------------------------
// The clients.

interface Client {
  /** Raw chunks with the time each came off the socket, parsed later. */
  chunks: Array<{ t: number; s: string }>;
  buffer: string;
  /** Event key ("report id:change") → arrival time. */
  events: Map<string, number>;
  ended: boolean;
  request: http.ClientRequest;
}

function openClient(url: string, headers: Record<string, string>, agent: http.Agent): Promise<Client> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { agent, headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) { res.resume(); reject(new Error(`GET ${url}: ${res.statusCode}`)); return; }
      res.setEncoding('utf8');
      const client: Client = { chunks: [], buffer: '', events: new Map(), ended: false, request };
      res.on('data', (s: string) => { client.chunks.push({ t: now(), s }); });
      res.on('close', () => { client.ended = true; });
      // The headers came after the server subscribed (Herald subscribes before it answers).
      resolve(client);
    });
    request.on('error', (err) => reject(err));
    request.end();
  });
}

/** Parses what came since the last call: every complete block with a data line gives one event. */
function parse(client: Client): void {
  for (const { t, s } of client.chunks) {
    client.buffer += s;
    let end: number;
    while ((end = client.buffer.indexOf('\n\n')) >= 0) {
      const block = client.buffer.slice(0, end);
      client.buffer = client.buffer.slice(end + 2);
      let event = '';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (event !== 'report.updated' || data === '') continue;
      const d = JSON.parse(data) as { id: string; change: string };
      const key = `${d.id}:${d.change}`;
      if (!client.events.has(key)) client.events.set(key, t);
    }
  }
  client.chunks.length = 0;
}

async function openSome(url: string, headers: Record<string, string>, count: number): Promise<Client[]> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const clients: Client[] = [];
  // 25 at a time: a burst of a thousand connects would measure the accept queue, not the events.
  for (let i = 0; i < count; i += 25) {
    clients.push(...await Promise.all(Array.from({ length: Math.min(25, count - i) }, () => openClient(url, headers, agent))));
  }
  return clients;
}

type ClientMessage =
  | { cmd: 'open'; set: string; url: string; headers: Record<string, string>; count: number }
  | { cmd: 'collect'; set: string; keys: string[] }
  | { cmd: 'close'; set: string };

/** A client process: holds sets of streams, parses and reports their arrivals when asked. */
function clientProcess(): void {
  const sets = new Map<string, Client[]>();
  process.on('message', (m: ClientMessage) => {
    void (async () => {
      if (m.cmd === 'open') {
        sets.set(m.set, await openSome(m.url, m.headers, m.count));
        process.send!({ ok: true });
      } else if (m.cmd === 'collect') {
        const clients = sets.get(m.set) ?? [];
        for (const c of clients) parse(c);
        const times = clients.map((c) => m.keys.map((k) => c.events.get(k) ?? -1));
        process.send!({ times, ended: clients.map((c) => c.ended) });
      } else {
        for (const c of sets.get(m.set) ?? []) c.request.destroy();
        sets.delete(m.set);
        process.send!({ ok: true });
      }
    })().catch((err: unknown) => { console.error(err); process.exit(1); });
  });
  process.send!({ ready: true });
}

/** The client processes, asked one question at a time each. */
interface ClientGroups {
  open(set: string, url: string, headers: Record<string, string>): Promise<void>;
  collect(set: string, keys: string[]): Promise<{ times: number[][]; ended: boolean[] }>;
  close(set: string): Promise<void>;
  stop(): Promise<void>;
}

async function startClientGroups(): Promise<ClientGroups> {
  const groups = await Promise.all(Array.from({ length: CLIENT_PROCESSES }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--clients'], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`client process exited (${code})`)));
    });
    return child;
  }));
  const ask = <T>(child: ChildProcess, m: ClientMessage) => new Promise<T>((resolve) => { child.once('message', (r) => resolve(r as T)); child.send(m); });
  const share = (i: number) => Math.floor(CLIENTS / CLIENT_PROCESSES) + (i < CLIENTS % CLIENT_PROCESSES ? 1 : 0);
  return {
    async open(set, url, headers) { await Promise.all(groups.map((g, i) => ask(g, { cmd: 'open', set, url, headers, count: share(i) }))); },
    async collect(set, keys) {
      const all = await Promise.all(groups.map((g) => ask<{ times: number[][]; ended: boolean[] }>(g, { cmd: 'collect', set, keys })));
      return { times: all.flatMap((a) => a.times), ended: all.flatMap((a) => a.ended) };
    },
    async close(set) { await Promise.all(groups.map((g) => ask(g, { cmd: 'close', set }))); },
    async stop() { await stopChildren(groups); },
  };
}

// ---------------------------------------------------------------------------------------------
// One round: the changes at a steady pace, then every client's arrivals against the answers.

interface Change { key: string; sent: number; answered: number }
interface RoundResult {
  p50: number; p99: number; max: number; p50Sent: number; p99Sent: number; early: number; minGot: number; maxGot: number; ended: number;
  /** The changes' own request times (sent → answered). */
  answerP50: number; answerP99: number;
}

async function round(groups: ClientGroups, set: string, change: (i: number) => Promise<string>): Promise<RoundResult> {
  const changes: Change[] = [];
  await sleep(SETTLE_MS);
  const t0 = now();
  for (let i = 0; i < CHANGES; i += 1) {
    const slot = t0 + (i * 1000) / RATE;
    const wait = slot - now();
    if (wait > 0) await sleep(wait);
    const sent = now();
    const key = await change(i);
    changes.push({ key, sent, answered: now() });
  }
  const keys = changes.map((c) => c.key);
  const deadline = now() + DRAIN_MS;
  // Parsing a round's chunks holds the client processes' event loops for a while: first let the
  // last events arrive (and be stamped) undisturbed.
  await sleep(QUIET_MS);
  let collected: { times: number[][]; ended: boolean[] };
  for (;;) {
    collected = await groups.collect(set, keys);
    const complete = collected.times.every((ts, i) => collected.ended[i] || ts.every((t) => t >= 0));
    if (complete || now() > deadline) break;
    await sleep(100);
  }
  const fromAnswer: number[] = [];
  const fromSent: number[] = [];
  let early = 0;
  const got: number[] = [];
  for (const ts of collected.times) {
    let n = 0;
    changes.forEach((ch, k) => {
      const t = ts[k]!;
      if (t < 0) return;
      n += 1;
      fromAnswer.push(t - ch.answered);
      fromSent.push(t - ch.sent);
      if (t < ch.answered) early += 1;
    });
    got.push(n);
  }
  fromAnswer.sort((a, b) => a - b);
  fromSent.sort((a, b) => a - b);
  if (process.env.BENCH_ANSWERS === '1') console.log(`    answers in order (ms): ${changes.map((c) => (c.answered - c.sent).toFixed(1)).join(' ')}`);
  const answers = changes.map((c) => c.answered - c.sent).sort((a, b) => a - b);
  return {
    answerP50: quantile(answers, 0.5), answerP99: quantile(answers, 0.99),
    p50: quantile(fromAnswer, 0.5), p99: quantile(fromAnswer, 0.99), max: fromAnswer[fromAnswer.length - 1] ?? NaN,
    p50Sent: quantile(fromSent, 0.5), p99Sent: quantile(fromSent, 0.99), early: early / Math.max(1, fromAnswer.length),
    minGot: Math.min(...got), maxGot: Math.max(...got), ended: collected.ended.filter((e) => e).length,
  };
}

const show = (label: string, r: RoundResult) =>
  console.log(`  ${label}  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  max ${r.max.toFixed(1)} ms   ` +
    `(from the request's start: p50 ${r.p50Sent.toFixed(1)}, p99 ${r.p99Sent.toFixed(1)})   ` +
    `events per client ${r.minGot === r.maxGot ? r.minGot : `${r.minGot}–${r.maxGot}`} of ${CHANGES}` +
    `${r.ended ? `, ${r.ended} streams ended` : ''}; ${(r.early * 100).toFixed(1)}% arrived before the answer; ` +
    `the change answered in p50 ${r.answerP50.toFixed(1)} ms, p99 ${r.answerP99.toFixed(1)} ms`);

/** A process's resident memory in MiB (Linux). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
/** Whether this process may hold both sets of clients at once (file descriptors, with room to spare). */
function fdLimit(): number {
  const m = /Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'));
  return m ? Number(m[1]) : 1024;
}

// ---------------------------------------------------------------------------------------------

async function spawnChild(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  // BENCH_NODE_ARGS adds arguments to Herald's node (e.g. --cpu-prof --cpu-prof-dir=DIR).
  const herald = args[0] === 'src/cli.ts';
  const nodeArgs = herald ? (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((x) => x !== '') : [];
  const entry = herald ? [...heraldEntry(), ...args.slice(1)] : ['--import', 'tsx', ...args];
  const child = spawn(process.execPath, [...nodeArgs, ...entry], {
    // BENCH_API_LOG=FILE keeps Herald's log (its request lines carry duration_ms, the server's own time).
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', herald && process.env.BENCH_API_LOG ? openSync(process.env.BENCH_API_LOG, 'w') : 'ignore', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code})`))));
  exited.catch(() => undefined);
  return Object.assign(child, { exited });
}

/** Resolves once `url` answers 200 (the child is listening), or rejects when the child exits. */
async function ready(child: ChildProcess & { exited?: Promise<never> }, url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await Promise.race([
      fetch(url).then(async (r) => { await r.arrayBuffer(); return r.status === 200; }, () => false),
      child.exited!,
    ]);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer within 60 s`);
    await sleep(200);
  }
}

async function main(): Promise<void> {
  const place = await benchPlace();
  const children: ChildProcess[] = [];
  let groups: ClientGroups | undefined;
  try {
    // Herald: `herald api` as deployed (log at info, to /dev/null).
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const herald = await spawnChild(['src/cli.ts', 'api'], { ...place.env, SVC_LOG_LEVEL: 'info', SVC_LISTEN: `127.0.0.1:${port}` });
    children.push(herald);
    await ready(herald, `${url}/health/live`);
    children.push(await spawnRole('scheduler', place, {}, 'scheduler started'));
    children.push(await spawnRole('worker', place, {}, 'worker started'));
    const { post: asAdmin, selfQuery } = await adminOf(url, place);
    const { token } = await asAdmin('/api/v1/api-keys', { name: 'bench', scope: 'write' });
    const auth = { Authorization: `Bearer ${token!}` };
    const query = { id: (await selfQuery('select 1 as one')).queryId };

    // The limit: the bare server, on a channel of its own.
    const limitPort = await freePort();
    const channel = `bench_sse_limit_${randomBytes(4).toString('hex')}`;
    const limit = await spawnChild([fileURLToPath(import.meta.url), '--limit-server'], {
      SVC_REDIS_URL: place.redisUrl, SVC_DATABASE_URL: place.dbUrl.toString(), BENCH_LIMIT_PORT: String(limitPort), BENCH_LIMIT_CHANNEL: channel,
    });
    children.push(limit);
    await ready(limit, `http://127.0.0.1:${limitPort}/health`);

    // Herald's changes: report created, paused, resumed, created, … (each emits one report.updated).
    let current = '';
    let limitCurrent = '';
    const heraldChange = async (i: number): Promise<string> => {
      const step = i % 3;
      const path = step === 0 ? '/api/v1/reports' : `/api/v1/reports/${current}/${step === 1 ? 'pause' : 'resume'}`;
      const res = await fetch(`${url}${path}`, {
        method: 'POST', headers: { 'Content-Type': 'application/json', ...auth },
        body: step === 0 ? JSON.stringify({ title: `Bench ${i}`, query_id: query.id }) : undefined,
      });
      const body = (await res.json()) as { id: string };
      if (res.status !== (step === 0 ? 201 : 200)) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      if (step === 0) current = body.id;
      return `${body.id}:${['created', 'paused', 'resumed'][step]!}`;
    };
    // The limit's changes: a POST to the bare server, which makes the same change in the store
    // (its own two tables in the bench's database) and publishes a payload of the same shape.
    const limitChange = async (i: number): Promise<string> => {
      const step = i % 3;
      if (step === 0) limitCurrent = randomUUID();
      const change = ['created', 'paused', 'resumed'][step]!;
      const res = await fetch(`http://127.0.0.1:${limitPort}/changes/${limitCurrent}/${change}`, { method: 'POST' });
      const body = await res.text();
      if (res.status !== (step === 0 ? 201 : 200)) throw new Error(`limit ${change}: ${res.status} ${body}`);
      return `${limitCurrent}:${change}`;
    };

    // Warm-up, counted nowhere: the first change of each kind after start-up compiles its
    // operation's validators (on first use) and its code paths (40–70 ms each, measured), which
    // is start-up, not the streams' doing. Before the idle figure, so that the streams' memory is
    // their own.
    for (let i = 0; i < WARMUP; i += 1) { await heraldChange(i); await limitChange(i); }

    if (2 * Math.ceil(CLIENTS / CLIENT_PROCESSES) + 500 > fdLimit()) throw new Error(`raise BENCH_CLIENT_PROCESSES: ${CLIENTS} clients twice exceed ${CLIENT_PROCESSES} processes' file limit`);
    groups = await startClientGroups();
    // The API's memory once idle, before the streams.
    await sleep(2000);
    const idleMiB = rssMiB(herald.pid!);
    let t = performance.now();
    await groups.open('herald', `${url}/api/v1/events`, auth);
    console.log(`events: ${CLIENTS} SSE clients in ${CLIENT_PROCESSES} client processes; Herald ${process.env.BENCH_BUILT === '1' ? 'built (dist)' : 'through tsx'}; ${CHANGES} changes per round at ${RATE}/s; Herald's ${CLIENTS} streams opened in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    await sleep(2000);
    const connectedMiB = rssMiB(herald.pid!);
    console.log(`  API resident memory: ${idleMiB.toFixed(0)} MiB idle, ${connectedMiB.toFixed(0)} MiB with ${CLIENTS} streams (+${(connectedMiB - idleMiB).toFixed(0)} MiB)`);
    t = performance.now();
    await groups.open('limit', `http://127.0.0.1:${limitPort}/events`, {});
    console.log(`  the limit's ${CLIENTS} streams opened in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const heraldRounds: RoundResult[] = [];
    const limitRounds: RoundResult[] = [];
    for (let r = 1; r <= ROUNDS; r += 1) {
      const h = await round(groups, 'herald', heraldChange);
      heraldRounds.push(h);
      show(`round ${r} Herald:`, h);
      const l = await round(groups, 'limit', limitChange);
      limitRounds.push(l);
      show(`round ${r} limit: `, l);
    }
    const afterMiB = rssMiB(herald.pid!);
    console.log(`  API resident memory after the rounds: ${afterMiB.toFixed(0)} MiB (+${(afterMiB - idleMiB).toFixed(0)} MiB over idle)`);
    console.log(`  summary over ${ROUNDS} rounds, (event arrival − commit) over every client × change:`);
    console.log(`    Herald p50 ${spread(heraldRounds.map((r) => r.p50))} ms;  p99 ${spread(heraldRounds.map((r) => r.p99))} ms`);
    console.log(`    limit  p50 ${spread(limitRounds.map((r) => r.p50))} ms;  p99 ${spread(limitRounds.map((r) => r.p99))} ms`);
    console.log(`    Herald's changes answered in: p50 ${spread(heraldRounds.map((r) => r.answerP50))} ms;  p99 ${spread(heraldRounds.map((r) => r.answerP99))} ms`);
    console.log(`    the limit's changes answered in: p50 ${spread(limitRounds.map((r) => r.answerP50))} ms;  p99 ${spread(limitRounds.map((r) => r.answerP99))} ms`);
    console.log(`    the change's answer, Herald/limit round by round: p50 ${spread(heraldRounds.map((h, i) => h.answerP50 / limitRounds[i]!.answerP50), 2)};  ` +
      `p99 ${spread(heraldRounds.map((h, i) => h.answerP99 / limitRounds[i]!.answerP99), 2)}`);
    console.log(`    Herald/limit round by round: p50 ${spread(heraldRounds.map((h, i) => h.p50 / limitRounds[i]!.p50), 2)};  ` +
      `p99 ${spread(heraldRounds.map((h, i) => h.p99 / limitRounds[i]!.p99), 2)}`);
  } finally {
    await groups?.stop();
    await stopChildren(children);
    await place.release();
  }
}

if (process.argv.includes('--clients')) clientProcess();
else if (process.argv.includes('--limit-server')) limitServer().catch((err: unknown) => { console.error(err); process.exit(1); });
else main().catch((err: unknown) => { console.error(err); process.exit(1); });
