/**
 * The channel gate on Redis (the deliveries feature's ChannelGate), shared by every worker of the
 * fleet. Each decision is one Lua script, so two workers never both take the last place:
 * - places in flight: a sorted set per channel of lease tokens scored by their expiry; a lease is
 *   renewed while its send lasts and released at its end, and one a crashed worker left expires
 *   within LEASE_MS;
 * - the circuit: a hash per channel with the run of failed sends, `open_until` and, once that
 *   has passed, `probe_until` and `probe_token` (one trial send at a time; the others wait their
 *   turn as on a busy channel, since the trial decides for them within its send). A send the peer
 *   took deletes the hash when it gives its place back (closed: one script for both); a failure
 *   while it was open or on trial opens it again; `threshold` failures in a row open it; a trial
 *   given back without an answer (its attempt gone or ended, the run cancelled, the worker
 *   stopping) frees the trial at once rather than at its lease's end.
 * Times are the callers' clocks (ms since the epoch); the keys expire on their own when idle.
 */
import { createHash, randomUUID } from 'node:crypto';

const shas = new Map<string, string>();
const sha = (script: string): string => {
  let s = shas.get(script);
  if (!s) { s = createHash('sha1').update(script).digest('hex'); shas.set(script, s); }
  return s;
};
import type { Redis } from 'ioredis';
import type { ChannelGate, GatePass } from '../../domain/deliveries/ports.js';

/** How long a place in flight is held without renewal (a crashed worker's place frees itself after it). */
const LEASE_MS = 60_000;
const RENEW_EVERY_MS = 20_000;
/** How long a failure run is remembered while nothing fails again. */
const STREAK_TTL_MS = 3_600_000;

const ENTER = `
local now = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local probe = 0
local openUntil = tonumber(redis.call('HGET', KEYS[2], 'open_until') or '0')
if openUntil > now then return {'open', openUntil} end
if openUntil > 0 then
  local p = tonumber(redis.call('HGET', KEYS[2], 'probe_until') or '0')
  if p > now then return {'busy', 0} end
  probe = 1
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= limit then return {'busy', 0} end
if probe == 1 then redis.call('HSET', KEYS[2], 'probe_until', now + lease, 'probe_token', ARGV[4]) end
redis.call('ZADD', KEYS[1], now + lease, ARGV[4])
redis.call('PEXPIRE', KEYS[1], lease * 2)
return {'go', probe}`;

const LEAVE = `
redis.call('ZREM', KEYS[1], ARGV[1])
if ARGV[2] == '1' then
  redis.call('DEL', KEYS[2])
elseif redis.call('HGET', KEYS[2], 'probe_token') == ARGV[1] then
  redis.call('HDEL', KEYS[2], 'probe_until', 'probe_token')
end
return 0`;

const FAILED = `
local now = tonumber(ARGV[1])
local threshold = tonumber(ARGV[2])
local openMs = tonumber(ARGV[3])
local openUntil = tonumber(redis.call('HGET', KEYS[1], 'open_until') or '0')
if openUntil > 0 then
  redis.call('HSET', KEYS[1], 'open_until', now + openMs)
  redis.call('HDEL', KEYS[1], 'probe_until', 'probe_token')
  redis.call('PEXPIRE', KEYS[1], openMs + ${STREAK_TTL_MS})
  return 1
end
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if failures >= threshold then
  redis.call('HSET', KEYS[1], 'open_until', now + openMs)
  redis.call('HDEL', KEYS[1], 'failures')
  redis.call('PEXPIRE', KEYS[1], openMs + ${STREAK_TTL_MS})
  return 1
end
redis.call('PEXPIRE', KEYS[1], ${STREAK_TTL_MS})
return 0`;

export function createChannelGate(deps: {
  redis: Redis;
  prefix: string;
  /** SVC_DELIVERY_BREAKER_FAILURES and SVC_DELIVERY_BREAKER_SECONDS in ms. */
  breaker: { failures: number; openMs: number };
  now?: () => number;
  /** The wait a busy channel's job is given before it asks again (default 0.5-1.5 s, spread). */
  busyRetryMs?: () => number;
}): ChannelGate {
  const now = deps.now ?? Date.now;
  const inflight = (id: string) => `${deps.prefix}:gate:${id}:inflight`;
  const circuit = (id: string) => `${deps.prefix}:gate:${id}:circuit`;
  const busyRetry = deps.busyRetryMs ?? (() => 500 + Math.floor(Math.random() * 1000));
  // By their SHA once loaded (EVALSHA), not their text on every call.
  const run = (script: string, keys: string[], ...args: Array<string | number>) => deps.redis.evalsha(sha(script), keys.length, ...keys, ...args)
    .catch((err: Error) => {
      if (!/NOSCRIPT/.test(err.message)) throw err;
      return deps.redis.eval(script, keys.length, ...keys, ...args);
    });
  return {
    async enter(channelId: string, limit: number): Promise<GatePass> {
      const token = randomUUID();
      const [kind, value] = await run(ENTER, [inflight(channelId), circuit(channelId)], now(), LEASE_MS, limit, token) as [string, number];
      if (kind === 'open') return { kind: 'open', until: Number(value) };
      if (kind === 'busy') return { kind: 'busy', retryInMs: busyRetry() };
      const renew = setInterval(() => {
        deps.redis.zadd(inflight(channelId), 'XX', now() + LEASE_MS, token).catch(() => undefined);
      }, RENEW_EVERY_MS);
      renew.unref();
      return {
        kind: 'go',
        probe: Number(value) === 1,
        async release(taken: boolean) {
          clearInterval(renew);
          await run(LEAVE, [inflight(channelId), circuit(channelId)], token, taken ? '1' : '0');
        },
      };
    },
    async recordFailure(channelId: string): Promise<void> {
      await run(FAILED, [circuit(channelId)], now(), deps.breaker.failures, deps.breaker.openMs);
    },
    async isOpen(channelId: string): Promise<boolean> {
      const until = await deps.redis.hget(circuit(channelId), 'open_until');
      return until !== null && Number(until) > now();
    },
  };
}
