/**
 * A Redis Cluster on loopback from Debian's redis-server: three primaries (no replicas), each on
 * its own free port in a folder of its own, slots assigned by `redis-cli --cluster create`. Used
 * by the tests of SVC_REDIS_URL's cluster form; `stop()` leaves nothing behind.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePorts } from './child-process.js';

export interface ClusterSet {
  /** SVC_REDIS_URL for Herald. */
  url: string;
  ports: number[];
  /** The keys of every node matching a pattern. */
  keys(pattern: string): Promise<Array<{ port: number; key: string }>>;
  stop(): Promise<void>;
}

export async function startClusterSet(): Promise<ClusterSet> {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-cluster-'));
  const ports = await freePorts(3);
  const children: ChildProcess[] = ports.map((port) => spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, `nodes-${port}.conf`),
    '--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no', '--dir', dir,
  ], { cwd: dir, stdio: 'ignore' }));
  const ask = async (port: number, ...command: [string, ...string[]]): Promise<unknown> => {
    const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await r.connect();
      return await r.call(...command);
    } finally {
      r.disconnect();
    }
  };
  const set: ClusterSet = {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    async keys(pattern) {
      const all = await Promise.all(ports.map(async (port) => (await ask(port, 'KEYS', pattern) as string[]).map((key) => ({ port, key }))));
      return all.flat();
    },
    async stop() {
      await Promise.all(children.map((c) => new Promise<void>((resolve) => {
        if (c.exitCode !== null || c.signalCode !== null) { resolve(); return; }
        c.once('exit', () => resolve());
        c.kill('SIGKILL');
      })));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    for (let i = 0; ; i += 1) {
      if ((await Promise.all(ports.map((p) => ask(p, 'PING').catch(() => undefined)))).every((r) => r === 'PONG')) break;
      if (i > 100) throw new Error('the cluster\'s nodes did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    await promisify(execFile)('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
    for (let i = 0; ; i += 1) {
      const states = await Promise.all(ports.map(async (p) => /cluster_state:ok/.test(String(await ask(p, 'CLUSTER', 'INFO')))));
      if (states.every(Boolean)) break;
      if (i > 300) throw new Error('the cluster did not become ok');
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await set.stop();
    throw err;
  }
  return set;
}
