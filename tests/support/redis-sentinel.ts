/**
 * A Redis Sentinel set-up on loopback from Debian's redis-server: a primary, a replica and three
 * sentinels (quorum 2, down after 1 s, failover timeout 10 s: so Herald's readiness says degraded,
 * not unhealthy, for the first 11 s of a switch), each on its own free port, in a folder of its
 * own. Used by the tests of SVC_REDIS_URL's Sentinel form and the soak; `stop()` leaves nothing
 * behind.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePorts } from './child-process.js';
import { redisServers } from './redis-servers.js';

export interface SentinelSet {
  /** SVC_REDIS_URL for Herald. */
  url: string;
  masterName: string;
  ports: { primary: number; replica: number; sentinels: number[] };
  /** The port the sentinels name as the primary now. */
  primaryPort(): Promise<number>;
  /** Asks a sentinel for a failover and waits until the sentinels name the other server. */
  failover(): Promise<number>;
  /** SIGKILLs the primary's server (the sentinels notice after 1 s and fail over): its port. */
  killPrimary(): Promise<number>;
  /** SIGKILLs the server on this port. */
  kill(port: number): Promise<void>;
  /** Waits until the sentinels all name a primary other than `port`, and it answers as one. */
  primaryOtherThan(port: number): Promise<number>;
  /**
   * Starts a killed server again, as a replica of the primary, and waits until it is in sync; or,
   * with `asPrimary`, as a primary (when the sentinels still name it: nothing was left to promote).
   */
  restart(port: number, asPrimary?: boolean): Promise<void>;
  stop(): Promise<void>;
}

export async function startSentinelSet(): Promise<SentinelSet> {
  const servers = redisServers('sentinel');
  const { dir, ask, until } = servers;
  const [primary, replica, ...sentinels] = await freePorts(5) as [number, number, number, number, number];
  const masterName = 'herald-primary';
  const common = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const processes = new Map([
    [primary, servers.start(['--port', String(primary), ...common])],
    [replica, servers.start(['--port', String(replica), ...common, '--replicaof', '127.0.0.1', String(primary)])],
  ]);
  const inSync = (port: number) => until(async () => /master_link_status:up/.test(String(await ask(port, 'INFO', 'replication'))), `the replica on ${port}`);
  for (const port of sentinels) {
    const conf = path.join(dir, `sentinel-${port}.conf`);
    writeFileSync(conf, [
      `port ${port}`, 'bind 127.0.0.1', `dir ${dir}`,
      `sentinel monitor ${masterName} 127.0.0.1 ${primary} 2`,
      `sentinel down-after-milliseconds ${masterName} 1000`,
      `sentinel failover-timeout ${masterName} 10000`,
      '',
    ].join('\n'));
    servers.start([conf, '--sentinel']);
  }
  const primaryPort = async () => Number((await ask(sentinels[0], 'SENTINEL', 'get-master-addr-by-name', masterName) as string[])[1]);
  const set: SentinelSet = {
    url: `redis+sentinel://${sentinels.map((p) => `127.0.0.1:${p}`).join(',')}/${masterName}`,
    masterName,
    ports: { primary, replica, sentinels },
    primaryPort,
    async failover() {
      const before = await primaryPort();
      await ask(sentinels[0], 'SENTINEL', 'FAILOVER', masterName);
      return set.primaryOtherThan(before);
    },
    async primaryOtherThan(before) {
      let now = before;
      await until(async () => {
        now = await primaryPort();
        if (now === before) return false;
        // The new primary answers as one, and every sentinel agrees.
        const role = await ask(now, 'ROLE') as [string];
        const named = await Promise.all(sentinels.map(async (p) => Number((await ask(p, 'SENTINEL', 'get-master-addr-by-name', masterName) as string[])[1])));
        return role[0] === 'master' && named.every((n) => n === now);
      }, 'the failover', 60_000);
      return now;
    },
    async killPrimary() {
      const port = await primaryPort();
      await set.kill(port);
      return port;
    },
    kill: (port) => servers.kill(processes.get(port)!),
    async restart(port, asPrimary = false) {
      if (asPrimary) {
        processes.set(port, servers.start(['--port', String(port), ...common]));
        await until(async () => (await ask(port, 'ROLE') as [string])[0] === 'master', `the primary on ${port}`);
        return;
      }
      const now = await primaryPort();
      processes.set(port, servers.start(['--port', String(port), ...common, '--replicaof', '127.0.0.1', String(now)]));
      await inSync(port);
    },
    stop: () => servers.stop(),
  };
  try {
    // Up when the replica is in sync and every sentinel knows the replica and the other sentinels.
    await inSync(replica);
    await until(async () => {
      const views = await Promise.all(sentinels.map((p) => ask(p, 'SENTINEL', 'master', masterName) as Promise<string[]>));
      return views.every((v) => {
        const field = (k: string) => Number(v[v.indexOf(k) + 1]);
        return field('num-slaves') === 1 && field('num-other-sentinels') === 2;
      });
    }, 'the sentinels to know each other and the replica');
  } catch (err) {
    await set.stop();
    throw err;
  }
  return set;
}
