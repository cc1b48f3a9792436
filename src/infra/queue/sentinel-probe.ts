/**
 * Readiness under Redis Sentinel: when Herald's Redis does not answer, is its primary switching?
 * The sentinels of SVC_REDIS_URL are asked (one connection of their own, each in turn, 1 s each)
 * about the master; while one answers and Redis has been away for less than the time Sentinel
 * allows itself to notice a failure and fail over (its `down-after-milliseconds` plus its
 * `failover-timeout` for that master), the switch is under way and readiness says degraded. Past
 * that, or with no sentinel answering, Redis is down (unhealthy). For the other forms of
 * SVC_REDIS_URL there is no switch to wait for: the probe is absent.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { redisOptionsOf } from './redis-url.js';

export interface SentinelMaster {
  /** Sentinel's flags for the master: master, s_down, o_down, failover_in_progress, … */
  flags: string[];
  downAfterMs: number;
  failoverTimeoutMs: number;
}

/** The first answer of the sentinels about the master, or undefined when none answers in time. */
export async function askSentinels(options: RedisOptions, timeoutMs = 1000): Promise<SentinelMaster | undefined> {
  for (const s of options.sentinels ?? []) {
    const r = new Redis({
      host: s.host ?? '127.0.0.1',
      port: s.port ?? 26379,
      ...(options.sentinelUsername ? { username: options.sentinelUsername } : {}),
      ...(options.sentinelPassword ? { password: options.sentinelPassword } : {}),
      ...(options.enableTLSForSentinelMode ? { tls: options.sentinelTLS ?? {} } : {}),
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    r.on('error', () => undefined);
    try {
      await r.connect();
      const fields = await r.call('SENTINEL', 'MASTER', options.name!) as string[];
      const field = (k: string) => fields[fields.indexOf(k) + 1];
      return {
        flags: String(field('flags') ?? '').split(','),
        downAfterMs: Number(field('down-after-milliseconds') ?? 30_000),
        failoverTimeoutMs: Number(field('failover-timeout') ?? 180_000),
      };
    } catch {
      // the next sentinel
    } finally {
      r.disconnect();
    }
  }
  return undefined;
}

/**
 * For readiness: `observe(answered)` after each ping, `switching()` when it failed. Undefined
 * unless SVC_REDIS_URL is in the Sentinel form.
 */
export function sentinelProbe(url: string, now: () => number = Date.now): { observe(answered: boolean): void; switching(): Promise<boolean> } | undefined {
  let options: RedisOptions;
  try {
    options = redisOptionsOf(url);
  } catch {
    return undefined;
  }
  if (!options.sentinels || !options.name) return undefined;
  let awaySince: number | undefined;
  return {
    observe(answered) {
      if (answered) awaySince = undefined;
      else awaySince ??= now();
    },
    async switching() {
      const master = await askSentinels(options);
      if (!master) return false;
      const away = now() - (awaySince ?? now());
      return away <= master.downAfterMs + master.failoverTimeoutMs;
    },
  };
}
