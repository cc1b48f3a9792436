/**
 * A Redis Cluster on loopback from Debian's redis-server: three primaries (no replicas), each on
 * its own free port in a folder of its own, slots assigned by `redis-cli --cluster create`. Used
 * by the tests of SVC_REDIS_URL's cluster form; `stop()` leaves nothing behind.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
  // Each node's cluster bus port is drawn from the worker's range too: by default it is the port
  // + 10000, which lands in the system's ephemeral range, where an outgoing connection of another
  // test may hold it (a node then exits at start: "Could not bind cluster bus port").
  const all = await freePorts(6);
  const ports = all.slice(0, 3);
  const nodes = ports.map((port, i) => servers.start([
    '--port', String(port), '--cluster-port', String(all[3 + i]), '--bind', '127.0.0.1', '--cluster-enabled', 'yes',
    '--cluster-config-file', path.join(dir, `nodes-${port}.conf`),
    '--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', path.join(dir, `redis-${port}.log`),
  ]));
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
    // Say which node did not come up and why (its log), before the folder goes.
    const logs = ports.map((port, i) => {
      const exited = nodes[i]!.exitCode !== null || nodes[i]!.signalCode !== null;
      let log = '';
      try { log = readFileSync(path.join(dir, `redis-${port}.log`), 'utf8').split('\n').slice(-8).join('\n'); } catch { /* no log yet */ }
      return `node ${port}${exited ? ' (exited)' : ''}:\n${log}`;
    });
    await set.stop();
    throw new Error(`${(err as Error).message}\n${logs.join('\n')}`, { cause: err });
  }
  return set;
}
