/**
 * A Redis Cluster on loopback from Debian's redis-server: three primaries (no replicas), each on
 * its own free port in a folder of its own, slots assigned by `redis-cli --cluster create`. Used
 * by the tests of SVC_REDIS_URL's cluster form; `stop()` leaves nothing behind.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from './child-process.js';
import { redisServers } from './redis-servers.js';

export interface ClusterSet {
  /** SVC_REDIS_URL for Herald. */
  url: string;
  ports: number[];
  /** The keys of every node matching a pattern. */
  keys(pattern: string): Promise<Array<{ port: number; key: string }>>;
  stop(): Promise<void>;
}

export async function startClusterSet(): Promise<ClusterSet> {
  const servers = redisServers('cluster');
  const { dir, ask, until } = servers;
  const ports = await freePorts(3);
  for (const port of ports) {
    servers.start([
      '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, `nodes-${port}.conf`),
      '--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no', '--dir', dir,
    ]);
  }
  const set: ClusterSet = {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    async keys(pattern) {
      const all = await Promise.all(ports.map(async (port) => (await ask(port, 'KEYS', pattern) as string[]).map((key) => ({ port, key }))));
      return all.flat();
    },
    stop: () => servers.stop(),
  };
  try {
    await until(async () => (await Promise.all(ports.map((p) => ask(p, 'PING')))).every((r) => r === 'PONG'), 'the cluster\'s nodes', 10_000);
    await promisify(execFile)('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes']);
    await until(async () => (await Promise.all(ports.map(async (p) => /cluster_state:ok/.test(String(await ask(p, 'CLUSTER', 'INFO')))))).every(Boolean),
      'the cluster to be ok');
  } catch (err) {
    await set.stop();
    throw err;
  }
  return set;
}
