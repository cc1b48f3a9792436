/**
 * Redis servers from Debian's redis-server for tests of Herald's Redis topologies (Sentinel,
 * Cluster): a folder of their own, servers started in it, one-off commands to any of them, a
 * wait for a condition, and a stop that kills them all and removes the folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';

export interface RedisServers {
  dir: string;
  /** Starts `redis-server` with these arguments in the folder. */
  start(args: string[]): ChildProcess;
  /** SIGKILLs one server that `start` started, and waits until it has exited. */
  kill(child: ChildProcess): Promise<void>;
  /** One command to the server on a loopback port, on a connection of its own. */
  ask(port: number, ...command: [string, ...string[]]): Promise<unknown>;
  /** Polls `check` every 100 ms (a throw counts as false) until it holds; throws after `ms`. */
  until(check: () => Promise<boolean>, what: string, ms?: number): Promise<void>;
  stop(): Promise<void>;
}

export function redisServers(name: string): RedisServers {
  const dir = mkdtempSync(path.join(tmpdir(), `herald-${name}-`));
  const children: ChildProcess[] = [];
  // Whatever happens to the test (a hook timed out while the set-up was still starting servers,
  // so nobody holds the set to stop it), its servers do not outlive the test process.
  process.once('exit', () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const kill = (child: ChildProcess) => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) { resolve(); return; }
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
  return {
    dir,
    start(args) {
      const child = spawn('redis-server', args, { cwd: dir, stdio: 'ignore' });
      children.push(child);
      return child;
    },
    kill,
    async ask(port, ...command) {
      const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      r.on('error', () => undefined); // a server that is down: the command below fails, which the caller sees
      try {
        await r.connect();
        return await r.call(...command);
      } finally {
        r.disconnect();
      }
    },
    async until(check, what, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        if (await check().catch(() => false)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`timed out waiting for ${what}`);
    },
    async stop() {
      await Promise.all(children.map(kill));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
