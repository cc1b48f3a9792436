/**
 * The real `herald` command as a child process: `node --import tsx src/cli.ts <command>`, with an
 * environment of PATH, HOME and the SVC_* settings each test sets, on its own database, queue
 * prefix and data folder. Every child is killed in afterAll if it is still running.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { newId } from '../../src/core/ids.js';
import { isolate, type Isolated } from '../support/isolation.js';
import { freePorts, herald, killChildren, run, waitUntilLive, type Herald } from '../support/child-process.js';

/** Tries to open a connection: 'refused' or 'accepted' (then closed at once). */
function tryConnect(port: number): Promise<'accepted' | 'refused'> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve('accepted'); });
    socket.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolve('refused') : reject(err)));
  });
}

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: string }

function request(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(options.body));
    const req = http.request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The JSON log lines of a child's output (anything else is ignored). */
function jsonLines(text: string): Array<Record<string, unknown>> {
  return text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
}

const DB_PASSWORD = 'PLANTED-db-pass-123';
const SECRET_KEY = Buffer.from('PLANTED-secret-key-32-bytes-xyz!').toString('base64');
const METRICS_TOKEN = 'PLANTED-metrics-token-0123456789';
const API_KEY = 'hk_PLANTEDapikey0123456789abcdef';
const SESSION = 'PLANTEDsession0123456789abcdef';
const CSRF = 'PLANTEDcsrf0123456789abcdef';
const PASSWORD = 'PLANTED-pw-0123456789';
const QUERY_TOKEN = 'PLANTEDquerytoken0123456789';
const LINK_TOKEN = 'PLANTEDlinktoken0123456789';

let iso: Isolated;
let fresh: Isolated;
/** `herald serve` with every role, for healthcheck and SIGTERM. */
let main: { h: Herald; port: number; settings: Record<string, string> };
/** `herald serve` at debug level with planted secrets in its settings. */
let planted: { h: Herald; port: number };

beforeAll(async () => {
  [iso, fresh] = await Promise.all([isolate(), isolate({ template: false })]);
  const [mainPort, plantedPort] = await freePorts(2);
  const settings = { ...iso.env, SVC_ROLES: 'api,scheduler,worker', SVC_LISTEN: `127.0.0.1:${mainPort}`, SVC_LOG_LEVEL: 'info' };
  main = { h: herald(['serve'], settings), port: mainPort!, settings };
  const databaseUrl = new URL(iso.databaseUrl);
  databaseUrl.password = DB_PASSWORD; // trust authentication ignores it
  planted = {
    port: plantedPort!,
    h: herald(['serve'], {
      ...iso.env,
      SVC_ROLES: 'api,scheduler,worker',
      SVC_LISTEN: `127.0.0.1:${plantedPort}`,
      SVC_LOG_LEVEL: 'debug',
      SVC_LOG_FORMAT: 'json',
      SVC_DATABASE_URL: databaseUrl.toString(),
      SVC_SECRET_KEY: SECRET_KEY,
      SVC_METRICS_TOKEN: METRICS_TOKEN,
    }),
  };
  // Both start at once; the tests below use them in turn.
  await Promise.all([waitUntilLive(main.h, main.port), waitUntilLive(planted.h, planted.port)]);
}, 60_000);

afterAll(async () => {
  await killChildren();
  await Promise.all([iso?.release(), fresh?.release()]);
}, 20_000);

describe('herald with a bad setting', () => {
  it('exits non-zero with one stderr line naming the setting (SVC_LISTEN=nope, unknown SVC_WHAT)', async () => {
    const cases: Array<[string, Record<string, string>]> = [['SVC_LISTEN', { SVC_LISTEN: 'nope' }], ['SVC_WHAT', { SVC_WHAT: '1' }]];
    const results = await Promise.all(cases.map(async ([name, change]) => {
      const dataDir = path.join(iso.dataDir, `bad-${name}`);
      return { name, dataDir, ...await run(['serve'], { ...iso.env, SVC_DATA_DIR: dataDir, ...change }) };
    }));
    for (const r of results) {
      expect(r.code).not.toBe(0);
      expect(r.code).not.toBeNull();
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${r.name}:`);
      expect(r.stdout).toBe('');
      expect(existsSync(path.join(r.dataDir, 'secret.key'))).toBe(false);
    }
  });
});

describe('herald worker with SVC_PROBE_LISTEN', () => {
  it('serves its probes and metrics there, nothing else, and passes herald healthcheck', async () => {
    const [port] = await freePorts(1);
    // SVC_LISTEN is the API's (shared env files are common); a worker never listens on it.
    const settings = { ...main.settings, SVC_PROBE_LISTEN: `127.0.0.1:${port}`, SVC_DATA_DIR: path.join(iso.dataDir, 'worker') };
    const worker = herald(['worker'], settings);
    await waitUntilLive(worker, port!);
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', components: { store: { status: 'ok' }, migrations: { status: 'ok' }, redis: { status: 'ok' } } });
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^# TYPE svc_runs_total counter$/m);
    expect(metrics).toMatch(/^svc_build_info\{version="[^"]+"\} 1$/m);
    for (const path of ['/api/v1/me', '/api/v1/setup/status', '/docs']) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      expect([path, res.status]).toEqual([path, 404]);
    }
    const check = await run(['healthcheck'], settings);
    expect([check.code, check.stderr]).toEqual([0, '']);
    expect(worker.stdout()).not.toContain('"level":"error"');
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
  }, 30_000);
});

describe('herald without a command', () => {
  it('exits 2 with the usage on stderr; `herald help` prints it and exits 0', async () => {
    const bare = await run([], {});
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toContain('usage: herald <command>');
    const help = await run(['help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: herald <command>');
  });
});

describe('herald serve, healthcheck and SIGTERM', () => {
  it('healthcheck exits 0 and prints the ready body while serve runs', async () => {
    const r = await run(['healthcheck'], main.settings);
    expect(r.code).toBe(0);
    const m = /^200 (\{.*\})\s*$/s.exec(r.stdout);
    expect(m).not.toBeNull();
    expect(JSON.parse(m![1]!)).toEqual({
      status: 'ok', components: { store: { status: 'ok' }, migrations: { status: 'ok' }, redis: { status: 'ok' }, scheduler: { status: 'ok' } },
    });
  });

  it('names SVC_LISTEN in one line when its address is taken', async () => {
    const r = await run(['api'], { ...main.settings, SVC_LOG_LEVEL: 'error' });
    expect(r.code).not.toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toEqual([`herald: SVC_LISTEN: 127.0.0.1:${main.port} is already in use`]);
  });

  it('binds before its roles start: on an address in use it exits naming SVC_LISTEN, no job taken and no due report claimed', async () => {
    const own = await isolate();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const store = postgres(own.databaseUrl, { max: 1, onnotice: () => undefined });
    const redis = new Redis(own.redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue('runs', { connection: redis, prefix: own.queuePrefix });
    try {
      // Work for each role: pending runs with their jobs queued (the worker's), and a report due
      // an hour ago (the scheduler's).
      const connectionId = newId();
      const queryId = newId();
      const manual = newId();
      const due = newId();
      await store`insert into connections (id, key, name, type, host, port, database, username, ssl_mode)
        values (${connectionId}, 'src', 'Src', 'postgres', '127.0.0.1', 5432, 'postgres', 'postgres', 'disable')`;
      await store`insert into queries (id, key, name, connection_id, sql) values (${queryId}, 'q', 'Q', ${connectionId}, 'select 1 as one')`;
      await store`insert into reports (id, key, title, query_id) values (${manual}, 'manual', 'Manual', ${queryId})`;
      await store`insert into reports (id, key, title, query_id, schedule_cron, schedule_timezone, next_run_at)
        values (${due}, 'due', 'Due', ${queryId}, '0 * * * *', 'UTC', now() - interval '1 hour')`;
      const [dueBefore] = await store`select next_run_at from reports where id = ${due}`;
      const runIds = [newId(), newId(), newId(), newId()];
      for (const runId of runIds) {
        await store`insert into runs (id, report_id, trigger, status) values (${runId}, ${manual}, 'manual', 'pending')`;
        await queue.add('run-report', { runId, reportId: manual }, { jobId: runId, attempts: 3 });
      }

      const r = await run(['serve'], {
        ...own.env, SVC_ROLES: 'api,scheduler,worker', SVC_LISTEN: `127.0.0.1:${port}`, SVC_LOG_LEVEL: 'info', SVC_SCHEDULER_TICK_SECONDS: '1',
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr.split('\n').filter((l) => l.trim() !== '')).toEqual([`herald: SVC_LISTEN: 127.0.0.1:${port} is already in use`]);
      // Neither role started (each says so when it does), so neither could take anything.
      const said = jsonLines(r.stdout).map((l) => l.message);
      expect(said).not.toContain('scheduler started');
      expect(said).not.toContain('worker started');
      const runs = await store`select id, report_id, status, attempts from runs order by id`;
      expect(runs.map((x) => [x.report_id, x.status, x.attempts])).toEqual(runIds.map(() => [manual, 'pending', 0]));
      expect(await Promise.all(runIds.map((id) => queue.getJobState(id)))).toEqual(runIds.map(() => 'waiting'));
      const [dueAfter] = await store`select next_run_at from reports where id = ${due}`;
      expect(dueAfter!.next_run_at).toEqual(dueBefore!.next_run_at);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
      await store.end();
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
      await own.release();
    }
  }, 60_000);

  it('on SIGTERM answers the request in flight, refuses new connections, and exits 0', async () => {
    const { h: server, port } = main;
    const body = JSON.stringify({ name: 'Ada Admin', email: 'ada@example.com', password: 'a long enough password 1' });
    const half = Math.floor(body.length / 2);
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
    let received = Buffer.alloc(0);
    let serverClosed = false;
    socket.on('data', (b: Buffer) => { received = Buffer.concat([received, b]); });
    socket.on('close', () => { serverClosed = true; });
    const waitFor = async (done: () => boolean, what: string) => {
      for (let i = 0; i < 800 && !done(); i += 1) await delay(25);
      if (!done()) throw new Error(`never saw ${what}; received so far:\n${received.toString('utf8')}`);
    };

    // Headers first, with Expect: 100-continue, so that we know the server is processing the request.
    socket.write([
      'POST /api/v1/setup HTTP/1.1', `Host: 127.0.0.1:${port}`, 'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`, 'Expect: 100-continue', '', '',
    ].join('\r\n'));
    await waitFor(() => received.toString('latin1').startsWith('HTTP/1.1 100 Continue\r\n\r\n'), '100 Continue');
    received = Buffer.alloc(0);
    socket.write(body.slice(0, half));

    server.child.kill('SIGTERM');
    // A process group's stop reaches the server twice (directly and forwarded by make): the echo
    // must not turn the orderly stop into an abrupt exit.
    await delay(50);
    server.child.kill('SIGTERM');

    // New connections are refused while the request is still open (so the process is still running).
    let refused = false;
    for (let i = 0; i < 200 && !refused; i += 1) {
      refused = (await tryConnect(port)) === 'refused';
      if (!refused) await delay(25);
    }
    expect(refused).toBe(true);
    expect(server.child.exitCode).toBeNull();
    expect(received).toHaveLength(0);

    socket.write(body.slice(half));
    // The complete answer: status line, headers and a body of exactly Content-Length bytes.
    const complete = () => {
      const text = received.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, end + 2));
      return length !== null && Buffer.byteLength(text.slice(end + 4)) >= Number(length[1]);
    };
    await waitFor(complete, 'a complete answer');
    const text = received.toString('utf8');
    const head = text.slice(0, text.indexOf('\r\n\r\n'));
    const answerBody = text.slice(head.length + 4);
    expect(head).toMatch(/^HTTP\/1\.1 [2-5]\d\d /);
    expect(Buffer.byteLength(answerBody)).toBe(Number(/\r\ncontent-length: (\d+)/i.exec(head)![1]));
    expect(() => JSON.parse(answerBody) as unknown).not.toThrow();

    const { code, signal } = await server.exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    // The server let go of the connection it had kept alive.
    await waitFor(() => serverClosed, 'the server close the connection');
    socket.destroy();
    const logs = jsonLines(server.stdout());
    expect(logs.some((l) => l.message === 'stopping' && l.signal === 'SIGTERM')).toBe(true);
    expect(logs.some((l) => l.message === 'http request' && l.route === '/api/v1/setup')).toBe(true);
    expect(await tryConnect(port)).toBe('refused');
  }, 45_000);

  it('healthcheck exits 1 once the server has stopped', async () => {
    expect(main.h.child.exitCode).toBe(0);
    const r = await run(['healthcheck'], main.settings);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`127.0.0.1:${main.port}/health/ready`);
  });
});

describe('herald serve logs', () => {
  it('never carry a secret, at debug level, whatever the requests carry', async () => {
    const secrets = [DB_PASSWORD, SECRET_KEY, METRICS_TOKEN, API_KEY, SESSION, CSRF, PASSWORD, QUERY_TOKEN, LINK_TOKEN];
    expect(Buffer.from(SECRET_KEY, 'base64')).toHaveLength(32);
    const { h, port } = planted;

    const answers = await Promise.all([
      request(port, { path: '/api/v1/system/about', headers: { Authorization: `Bearer ${API_KEY}`, 'X-Request-ID': 'secrets-check-0001' } }),
      request(port, { path: '/api/v1/me', headers: { Cookie: `svc_session=${SESSION}; svc_csrf=${CSRF}` } }),
      request(port, {
        method: 'POST', path: '/api/v1/setup', headers: { 'Content-Type': 'application/json', Cookie: `svc_csrf=${CSRF}` },
        body: JSON.stringify({ name: 'Ada', email: 'ada@example.com', password: PASSWORD }),
      }),
      request(port, { method: 'POST', path: '/api/v1/setup', headers: { 'Content-Type': 'application/json' }, body: `{"password":"${PASSWORD}", ` }),
      request(port, { method: 'POST', path: '/api/v1/setup', headers: { 'Content-Type': 'text/plain' }, body: `password=${PASSWORD}` }),
      request(port, { path: `/api/v1/reports?token=${QUERY_TOKEN}&password=${PASSWORD}`, headers: { Authorization: `Bearer ${API_KEY}` } }),
      request(port, { path: `/health/ready?token=${QUERY_TOKEN}` }),
      request(port, { path: `/no/such/${QUERY_TOKEN}?token=${QUERY_TOKEN}` }),
      request(port, { path: `/r/${LINK_TOKEN}` }),
      request(port, { path: '/metrics', headers: { Authorization: `Bearer ${METRICS_TOKEN}` } }),
      request(port, { path: '/metrics', headers: { Authorization: `Bearer ${METRICS_TOKEN.slice(0, -1)}x` } }),
      request(port, { path: '/metrics', headers: { Authorization: `Basic ${Buffer.from(`u:${DB_PASSWORD}`).toString('base64')}` } }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([401, 401, expect.any(Number), 400, 415, 401, expect.any(Number), 404, expect.any(Number), 200, 401, 401]);
    expect(answers[9]!.body).toContain('svc_build_info');

    h.child.kill('SIGTERM');
    expect((await h.exited).code).toBe(0);

    const output = h.stdout() + h.stderr();
    const logs = jsonLines(h.stdout());
    // The lines were written (so that their absence cannot pass for redaction) ...
    expect(logs.filter((l) => l.message === 'http request').length).toBeGreaterThanOrEqual(answers.length);
    expect(logs.some((l) => l.request_id === 'secrets-check-0001' && l.status === 401)).toBe(true);
    expect(logs.some((l) => l.level === 'debug')).toBe(true);
    expect(logs.some((l) => l.message === 'api listening')).toBe(true);
    // ... and carry none of the planted secrets.
    for (const secret of secrets) expect(output).not.toContain(secret);
    expect(output).not.toMatch(/PLANTED/i);
    expect(output).not.toContain(Buffer.from(`u:${DB_PASSWORD}`).toString('base64'));
  }, 45_000);
});

describe('herald migrate', () => {
  it('applies the migrations to a fresh database, logs the count, and applies none the second time', async () => {
    const first = await run(['migrate'], fresh.env);
    expect(first.code).toBe(0);
    const done = jsonLines(first.stdout).find((l) => l.message === 'migrations applied');
    expect(done).toBeDefined();
    expect(done!.applied).toBeGreaterThan(0);
    expect(done!.applied).toBe(done!.total);

    const second = await run(['migrate'], fresh.env);
    expect(second.code).toBe(0);
    expect(jsonLines(second.stdout).find((l) => l.message === 'migrations applied')).toMatchObject({ applied: 0, total: done!.total });
  }, 45_000);
});
