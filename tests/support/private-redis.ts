/**
 * A redis-server of the test's own, on a free port, to stop, restart or flush without touching
 * the Redis the other test files share. `make test` installs redis-server when missing (as root).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { until } from './wait.js';
import { freePort } from './child-process.js';

function redisServerBinary(): string {
  // PATH first, then where packages put it (Debian: /usr/bin; some distributions: /usr/sbin).
  for (const candidate of ['redis-server', '/usr/bin/redis-server', '/usr/sbin/redis-server', '/usr/local/bin/redis-server']) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch { /* try the next */ }
  }
  throw new Error('redis-server is not installed: this test starts and stops a Redis of its own (make test installs it through scripts/ensure-services.sh when run as root; otherwise apt-get install redis-server)');
}

export { freePort };

export { until } from './wait.js';

export interface PrivateRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the server and removes its folder. */
  remove(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-redis-'));
  let child: ChildProcess | undefined;
  const stop = async () => {
    const r = child;
    child = undefined;
    if (!r) return;
    const exited = new Promise((resolve) => r.once('exit', resolve));
    r.kill('SIGKILL');
    await exited;
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(redisServerBinary(), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
      await until(() => new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
        s.on('error', () => resolve(false));
      }), 'redis to listen');
    },
    stop,
    async remove() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
