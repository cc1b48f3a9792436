/**
 * Abuse protection for sign-in, second-factor and password-reset requests, shared by every
 * instance through Redis:
 *  - per client address: a fixed budget per window (rate-limiter-flexible);
 *  - per account and address: progressive delays after a few failures (1 s, 2 s, 4 s … up to
 *    15 min), reset by a success;
 *  - per account from anywhere (against attacks spread over many addresses): delays that start
 *    much later and stay short (at most a minute), also reset by a success.
 *  Nobody can lock a user out: a delay only slows the next attempt, and from a fresh address
 *  the account-wide delay never exceeds a minute.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../../domain/shared/errors.js';

export interface AttemptKeys {
  account?: string | undefined;
  ip: string;
}

export interface AttemptGuard {
  /** Throws 429 rate_limited (with Retry-After) when this attempt must wait. */
  check(keys: AttemptKeys): Promise<void>;
  failed(keys: AttemptKeys): Promise<void>;
  succeeded(keys: AttemptKeys): Promise<void>;
}

export interface GuardPolicy {
  name: string;
  /** Attempts per client address per window. */
  ipPoints: number;
  ipWindowSeconds: number;
  /** Failures allowed per account+address before delays start. */
  freeFailures: number;
  /** Failures allowed per account from all addresses before delays start. */
  freeAccountFailures: number;
  maxDelaySeconds: number;
  /** Cap of the account-wide delay, so that failures from elsewhere cannot shut a user out. */
  maxAccountDelaySeconds: number;
}

export const SIGN_IN_POLICY: GuardPolicy = {
  name: 'sign-in', ipPoints: 100, ipWindowSeconds: 900, freeFailures: 5, freeAccountFailures: 20, maxDelaySeconds: 900, maxAccountDelaySeconds: 60,
};
export const RESET_POLICY: GuardPolicy = {
  name: 'reset', ipPoints: 20, ipWindowSeconds: 3600, freeFailures: 3, freeAccountFailures: 5, maxDelaySeconds: 3600, maxAccountDelaySeconds: 300,
};

const digest = (s: string) => createHash('sha256').update(s.trim().toLowerCase()).digest('hex').slice(0, 32);

function limited(seconds: number): DomainError {
  return new DomainError('rate_limited', `Too many attempts; retry in ${Math.ceil(seconds)} s`, { retryAfterSeconds: Math.max(1, Math.ceil(seconds)) });
}

export function createAttemptGuard(redis: Redis, prefix: string, policy: GuardPolicy): AttemptGuard {
  const ipLimiter = new RateLimiterRedis({
    storeClient: redis, keyPrefix: `${prefix}:rl:${policy.name}:ip`, points: policy.ipPoints, duration: policy.ipWindowSeconds,
  });
  const keysOf = (k: AttemptKeys): Array<{ key: string; free: number; cap: number }> => {
    if (!k.account) return [];
    const account = digest(k.account);
    return [
      { key: `${prefix}:throttle:${policy.name}:acct-ip:${account}:${k.ip}`, free: policy.freeFailures, cap: policy.maxDelaySeconds },
      { key: `${prefix}:throttle:${policy.name}:acct:${account}`, free: policy.freeAccountFailures, cap: policy.maxAccountDelaySeconds },
    ];
  };
  return {
    async check(k) {
      const now = Date.now();
      for (const { key } of keysOf(k)) {
        const until = Number(await redis.hget(key, 'until') ?? 0);
        if (until > now) throw limited((until - now) / 1000);
      }
      try {
        await ipLimiter.consume(k.ip);
      } catch (err) {
        if (err instanceof RateLimiterRes) throw limited(err.msBeforeNext / 1000);
        throw err;
      }
    },
    async failed(k) {
      for (const { key, free, cap } of keysOf(k)) {
        const count = await redis.hincrby(key, 'failures', 1);
        if (count > free) {
          const delay = Math.min(cap, 2 ** Math.min(30, count - free - 1));
          await redis.hset(key, 'until', String(Date.now() + delay * 1000));
        }
        await redis.expire(key, 24 * 3600);
      }
    },
    async succeeded(k) {
      const keys = keysOf(k).map((x) => x.key);
      if (keys.length > 0) await redis.del(...keys);
    },
  };
}
