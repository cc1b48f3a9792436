/**
 * The real `herald` command as a child process: `node --import tsx src/cli.ts <command>`, with an
 * environment of PATH, HOME and the SVC_* settings a test gives. `killChildren()` (in afterAll)
 * ends whatever is still running.
 *
 * Under `make test`, which builds dist/ from these sources just before the tests
 * (HERALD_TEST_BUILT=1), the built `node dist/src/cli.js` instead, as `make run` starts it: tsx
 * compiles nothing then, but its loader still takes a second of every start (a worker ready in
 * 2.1-2.3 s through tsx, 1.1-1.3 s built), and the suite starts a hundred of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** node's arguments before the command's: the built entry under `make test`, the sources otherwise. */
function entry(): string[] {
  if (process.env.HERALD_TEST_BUILT !== '1') return ['--import', 'tsx', 'src/cli.ts'];
  if (!existsSync(path.join(ROOT, 'dist/src/cli.js'))) throw new Error('HERALD_TEST_BUILT=1 but dist/src/cli.js is missing: run npm run build first (make test does)');
  return ['dist/src/cli.js'];
}
export const HERALD_ENTRY = entry();
/** The same as one command line (for `make run-built HERALD=…`). */
export const HERALD_COMMAND = ['node', ...HERALD_ENTRY].join(' ');

export interface Herald {
  child: ChildProcess;
  /** Everything written so far, in order of arrival. */
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();

export function herald(args: string[], settings: Record<string, string>): Herald {
  const env: Record<string, string> = { ...settings };
  if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
  if (process.env.HOME !== undefined) env.HOME = process.env.HOME;
  const child = spawn(process.execPath, [...HERALD_ENTRY, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => out.push(b));
  child.stderr!.on('data', (b: Buffer) => err.push(b));
  // 'close' comes after the pipes are drained, so the output is complete when this resolves.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => { children.delete(child); resolve({ code, signal }); });
  });
  return { child, stdout: () => Buffer.concat(out).toString('utf8'), stderr: () => Buffer.concat(err).toString('utf8'), exited };
}

export async function run(args: string[], settings: Record<string, string>) {
  const h = herald(args, settings);
  const { code, signal } = await h.exited;
  return { code, signal, stdout: h.stdout(), stderr: h.stderr() };
}

/** Distinct free ports: each is held open until all are known. */
/**
 * Ports of this test worker's own range. A port the system hands out (listen on 0) is free only
 * until it is closed again: two workers asking at the same moment may be handed the same one,
 * and the second Herald then never listens while the first answers its probes (a web test once
 * met the other worker's instance: "setup already done"). So each worker draws from a range no
 * other worker uses (Playwright's TEST_PARALLEL_INDEX from 20000, Jest's JEST_WORKER_ID from
 * 25000, 250 ports each; below the system's ephemeral range), checked free by listening on it;
 * outside a worker, or when its range is taken, the system's choice as before.
 */
const PORT_RANGE = 250;
function workerRange(): number | undefined {
  const playwright = process.env.TEST_PARALLEL_INDEX;
  if (playwright !== undefined && /^\d+$/.test(playwright) && Number(playwright) < 20) return 20000 + Number(playwright) * PORT_RANGE;
  const jest = process.env.JEST_WORKER_ID;
  if (jest !== undefined && /^\d+$/.test(jest) && Number(jest) < 20) return 25000 + Number(jest) * PORT_RANGE;
  return undefined;
}

/** Listens on `port` (0: the system's choice) and closes again: the port, or undefined when taken. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const got = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(got));
    });
  });
}

export async function freePorts(n: number): Promise<number[]> {
  const base = workerRange();
  const ports: number[] = [];
  for (let tries = 0; ports.length < n && base !== undefined && tries < PORT_RANGE; tries += 1) {
    const candidate = base + Math.floor(Math.random() * PORT_RANGE);
    if (ports.includes(candidate)) continue;
    const got = await probe(candidate);
    if (got !== undefined) ports.push(got);
  }
  while (ports.length < n) {
    const got = await probe(0);
    if (got !== undefined && !ports.includes(got)) ports.push(got);
  }
  return ports;
}

export const freePort = async (): Promise<number> => (await freePorts(1))[0]!;

/** Polls /health/live until it answers 200 (for up to `seconds`); fails early if the child exits. */
export async function waitUntilLive(h: Herald, port: number, seconds = 30): Promise<void> {
  for (let attempt = 0; attempt < seconds * 10; attempt += 1) {
    if (h.child.exitCode !== null || h.child.signalCode !== null) {
      throw new Error(`herald exited before it was live\n${h.stdout()}\n${h.stderr()}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health/live`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await delay(100);
  }
  throw new Error(`herald did not become live\n${h.stdout()}\n${h.stderr()}`);
}

/** A `herald scheduler` child (logging at info), once it says it started; fails early if it exits. */
export async function startedScheduler(settings: Record<string, string>): Promise<Herald> {
  const h = herald(['scheduler'], { SVC_LOG_LEVEL: 'info', ...settings });
  for (let waited = 0; waited < 60_000; waited += 100) {
    if (h.child.exitCode !== null || h.child.signalCode !== null) throw new Error(`the scheduler exited\n${h.stdout()}\n${h.stderr()}`);
    if (h.stdout().includes('scheduler started')) return h;
    await delay(100);
  }
  throw new Error(`the scheduler did not start\n${h.stdout()}\n${h.stderr()}`);
}

/** Kills every child still running and waits until each has closed. */
export async function killChildren(): Promise<void> {
  const left = [...children];
  for (const child of left) child.kill('SIGKILL');
  await Promise.all(left.map((child) => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(undefined);
    else child.once('close', resolve);
  })));
}

/** Polls `check` every 100 ms until it answers something; on timeout the error carries the child's output. */
export async function waitFor<T>(check: () => Promise<T | undefined | false>, what: string, ms = 60_000, child?: Herald): Promise<T> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${child ? `\n${child.stdout()}\n${child.stderr()}` : ''}`);
}
