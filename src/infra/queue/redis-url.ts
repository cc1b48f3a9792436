/**
 * SVC_REDIS_URL in its two forms:
 * - one server: `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS), as ioredis takes it;
 * - Redis Sentinel: `redis+sentinel://[[user]:password@]host1[:port1],host2[:port2],…/master-name[/db]`
 *   (`rediss+sentinel://` for TLS to the sentinels and the servers), with the query parameters
 *   `sentinel_password` and `sentinel_username` when the sentinels ask for their own credentials.
 *   The user and password are the servers'. The sentinels' port defaults to 26379.
 * Every Redis client of Herald (queues, workers, the event bus, rate limits) is made from the
 * options this answers, so a failover under Sentinel is followed by each of them (ioredis asks
 * the sentinels for the new primary when its connection drops).
 */
import type { RedisOptions } from 'ioredis';

const SENTINEL = /^(rediss?)\+sentinel:\/\/(?:([^@/]*)@)?([^/?#]+)\/([^/?#]+)(?:\/(\d+))?\/?(?:\?([^#]*))?$/;

export class RedisUrlError extends Error {}

/** The connection options of SVC_REDIS_URL, or RedisUrlError saying what is wrong (never echoing a password). */
export function redisOptionsOf(url: string): RedisOptions & { url?: string } {
  const m = SENTINEL.exec(url);
  if (!m) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new RedisUrlError('must be a redis://, rediss://, redis+sentinel:// or rediss+sentinel:// URL');
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
      throw new RedisUrlError('must be a redis://, rediss://, redis+sentinel:// or rediss+sentinel:// URL');
    }
    return { url };
  }
  const [, scheme, auth, hosts, name, db, query] = m;
  const sentinels = hosts!.split(',').map((h) => {
    const hp = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(h.trim());
    const port = Number(hp?.[2] ?? 26379);
    if (!hp || port < 1 || port > 65535) throw new RedisUrlError('lists its sentinels as host:port, separated by commas');
    return { host: hp[1]!.replace(/^\[|\]$/g, ''), port };
  });
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
