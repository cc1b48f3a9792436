/**
 * SVC_REDIS_URL in its two forms:
 * - one server: `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS), as ioredis takes it;
 * - Redis Sentinel: `redis+sentinel://[[user]:password@]host1[:port1],host2[:port2],…/master-name[/db]`
 *   (`rediss+sentinel://` for TLS to the sentinels and the servers), with the query parameters
 *   `sentinel_password` and `sentinel_username` when the sentinels ask for their own credentials.
 *   The user and password are the servers'. The sentinels' port defaults to 26379.
 * - Redis Cluster: `redis+cluster://[[user]:password@]host1:port1,host2:port2,…` (`rediss+cluster://`
 *   for TLS): some of the cluster's nodes, from which ioredis learns the rest. Every key of one
 *   installation then carries the hash tag `{SVC_QUEUE_PREFIX}` (see queueSettings), so BullMQ's
 *   and the rate limits' multi-key scripts find their keys in one slot.
 * Every Redis client of Herald (queues, workers, the event bus, rate limits) is made from the
 * options this answers, so a failover under Sentinel is followed by each of them (ioredis asks
 * the sentinels for the new primary when its connection drops).
 */
import type { RedisOptions } from 'ioredis';

const CLUSTER = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/;
const SENTINEL = /^(rediss?)\+sentinel:\/\/(?:([^@/]*)@)?([^/?#]+)\/([^/?#]+)(?:\/(\d+))?\/?(?:\?([^#]*))?$/;

export class RedisUrlError extends Error {}

const FORMS = 'must be a redis://, rediss://, redis+sentinel://, rediss+sentinel://, redis+cluster:// or rediss+cluster:// URL';

/** The nodes and per-node options of a Redis Cluster URL; undefined for the other forms. */
export function clusterOf(url: string): { nodes: Array<{ host: string; port: number }>; redisOptions: RedisOptions } | undefined {
  const m = CLUSTER.exec(url);
  if (!m) return undefined;
  const [, scheme, auth, hosts] = m;
  const nodes = hostsOf(hosts!, 6379, 'lists some of its nodes as host:port, separated by commas');
  const [user, password] = auth === undefined ? [undefined, undefined] : splitAuth(auth);
  return { nodes, redisOptions: { ...(user ? { username: user } : {}), ...(password ? { password } : {}), ...(scheme === 'rediss' ? { tls: {} } : {}) } };
}

/** Whether SVC_REDIS_URL names a Redis Cluster. */
export const isClusterUrl = (url: string): boolean => CLUSTER.test(url);

const hostsOf = (hosts: string, defaultPort: number, problem: string) => hosts.split(',').map((h) => {
  const hp = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(h.trim());
  const port = Number(hp?.[2] ?? defaultPort);
  if (!hp || port < 1 || port > 65535) throw new RedisUrlError(problem);
  return { host: hp[1]!.replace(/^\[|\]$/g, ''), port };
});

/**
 * The connection options of SVC_REDIS_URL, or RedisUrlError saying what is wrong (never echoing a
 * password). A cluster URL answers its first node's (`clusterOf` gives the cluster's).
 */
export function redisOptionsOf(url: string): RedisOptions & { url?: string } {
  const cluster = clusterOf(url);
  if (cluster) return { ...cluster.nodes[0]!, ...cluster.redisOptions };
  const m = SENTINEL.exec(url);
  if (!m) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new RedisUrlError(FORMS);
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
      throw new RedisUrlError(FORMS);
    }
    return { url };
  }
  const [, scheme, auth, hosts, name, db, query] = m;
  const sentinels = hostsOf(hosts!, 26379, 'lists its sentinels as host:port, separated by commas');
  const params = new URLSearchParams(query ?? '');
  const [user, password] = auth === undefined ? [undefined, undefined] : splitAuth(auth);
  const tls = scheme === 'rediss' ? {} : undefined;
  return {
    sentinels,
    name: decodeURIComponent(name!),
    ...(db !== undefined ? { db: Number(db) } : {}),
    ...(user ? { username: user } : {}),
    ...(password ? { password } : {}),
    ...(params.get('sentinel_username') ? { sentinelUsername: params.get('sentinel_username')! } : {}),
    ...(params.get('sentinel_password') ? { sentinelPassword: params.get('sentinel_password')! } : {}),
    ...(tls ? { tls, sentinelTLS: tls, enableTLSForSentinelMode: true } : {}),
  };
}

const splitAuth = (auth: string): [string | undefined, string | undefined] => {
  const i = auth.indexOf(':');
  if (i < 0) return [decodeURIComponent(auth) || undefined, undefined];
  return [decodeURIComponent(auth.slice(0, i)) || undefined, decodeURIComponent(auth.slice(i + 1)) || undefined];
};

/** The passwords in SVC_REDIS_URL (the servers' and the sentinels'), for the log's redaction. */
export function redisSecretsOf(url: string): string[] {
  try {
    const o = redisOptionsOf(url);
    if (o.url) {
      const p = decodeURIComponent(new URL(o.url).password);
      return p ? [p] : [];
    }
    return [o.password, o.sentinelPassword].filter((p): p is string => typeof p === 'string' && p !== '');
  } catch {
    return [];
  }
}
