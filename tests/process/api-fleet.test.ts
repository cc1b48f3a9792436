/**
 * `herald serve` with SVC_API_PROCESSES=2: two API processes (children of the primary) share
 * SVC_LISTEN and both answer; the primary runs the other roles itself (a scheduler here); an API
 * process that dies is replaced while the other goes on answering; SIGTERM stops them all and
 * the primary exits 0 with no process left behind.
 */
import { readFileSync } from 'node:fs';
import { isolate, type Isolated } from '../support/isolation.js';
import { freePorts, herald, killChildren, waitFor, waitUntilLive } from '../support/child-process.js';

let iso: Isolated;
beforeAll(async () => { iso = await isolate(); });
afterAll(async () => {
  await killChildren();
  await iso.release();
});

/** The pids of a process's children (Linux /proc). */
const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter((p) => p !== '').map(Number);
  } catch {
    return [];
  }
};
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const lines = (text: string) => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

it('serves one address from two API processes, replaces one that dies, and stops them all on SIGTERM', async () => {
  const [port] = await freePorts(1);
  const h = herald(['serve'], {
    ...iso.env, SVC_LISTEN: `127.0.0.1:${port}`, SVC_API_PROCESSES: '2', SVC_ROLES: 'api,scheduler', SVC_LOG_LEVEL: 'info',
    SVC_SCHEDULER_TICK_SECONDS: '1', SVC_SHUTDOWN_TIMEOUT_SECONDS: '2',
  });
  await waitUntilLive(h, port!);
  const members = await waitFor(async () => {
    const pids = childrenOf(h.child.pid!);
    const listening = lines(h.stdout()).filter((l) => l.message === 'api listening').length;
    return pids.length === 2 && listening === 2 ? pids : undefined;
  }, 'two API processes listening', 60_000, h);
  // The primary runs the scheduler itself (it ticks), and no API of its own.
  await waitFor(async () => lines(h.stdout()).some((l) => l.message === 'scheduler started'), 'the scheduler in the primary', 30_000, h);
  expect(lines(h.stdout()).filter((l) => l.message === 'scheduler started')).toHaveLength(1);

  // Both answer on the one address: new connections are handed out in turn (a request id begins
  // with its process's own random part).
  const processes = new Set<string>();
  for (let i = 0; i < 20; i += 1) {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/auth/methods`, { headers: { Connection: 'close' }, signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
    processes.add(res.headers.get('x-request-id')!.slice(0, 24));
  }
  expect(processes.size).toBe(2);

  // One dies: the other goes on answering, and the primary starts a replacement.
  process.kill(members[0]!, 'SIGKILL');
  // Once the primary has seen it go (a connection handed to it in that instant is lost, as with
  // any crashed server), every new connection goes to the one left.
  await waitFor(async () => lines(h.stdout()).some((l) => l.message === 'an API process exited; starting another' && l.signal === 'SIGKILL'),
    'the primary to see the API process exit', 30_000, h);
  for (let i = 0; i < 5; i += 1) {
    expect((await fetch(`http://127.0.0.1:${port}/health/live`, { headers: { Connection: 'close' }, signal: AbortSignal.timeout(10_000) })).status).toBe(200);
  }
  const replaced = await waitFor(async () => {
    const pids = childrenOf(h.child.pid!);
    return pids.length === 2 && !pids.includes(members[0]!) ? pids : undefined;
  }, 'a replacement API process', 60_000, h);
  await waitFor(async () => lines(h.stdout()).filter((l) => l.message === 'api listening').length === 3, 'the replacement listening', 60_000, h);

  h.child.kill('SIGTERM');
  const exit = await h.exited;
  expect(exit.code).toBe(0);
  for (const pid of replaced) expect(alive(pid)).toBe(false);
  expect(lines(h.stdout()).some((l) => l.message === 'API processes stopped' && l.count === 2)).toBe(true);
}, 180_000);
