/**
 * Abuse protection for sign-in, password-change and password-reset requests, shared by every
 * instance through Redis:
 *  - per client address: a fixed budget per window (rate-limiter-flexible), charged first, for
 *    every attempt, including the ones refused below;
 *  - per account and address: progressive delays after a few attempts that did not succeed
 *    (1 s, 2 s, 4 s … up to 15 min);
 *  - per account from anywhere (against guessing spread over many addresses): delays that start
 *    much later and stay short (at most a minute). They never hold back a familiar client: a
 *    browser that proves an earlier sign-in to this account (its svc_device_<account> cookie,
 *    bound to the password), or an address this account signed in from before with its current
 *    password (kept 90 days). Only a new browser at a new address waits them out, never for more
 *    than the short cap, and a password reset through the emailed link makes that browser
 *    familiar too: guesses from elsewhere cannot keep the owner out.
 * "Address" means the IPv4 address, or the /64 network of an IPv6 address (one host usually
 * owns a whole /64). An attempt is counted atomically before the password is checked (a Lua
 * script), so parallel requests cannot slip past the limit; a success clears the account's
 * counters. Time comes from the injected clock (tests move it instead of waiting); instances
 * should run NTP-synchronised clocks, as their delays are compared across instances.
 */
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError } from '../../core/errors.js';
import { systemClock, type Clock } from '../../core/clock.js';
import type { AttemptGuard, AttemptKeys, Quota } from '../../domain/identity/ports.js';

export interface GuardPolicy {
  name: string;
  /** Attempts per client address per window. */
  ipPoints: number;
  ipWindowSeconds: number;
  /** Attempts per account+address before delays start. */
  freeAttempts: number;
  maxDelaySeconds: number;
  /** Attempts per account from all addresses before account-wide delays start (0: none). */
  freeAccountAttempts: number;
  /** Cap of the account-wide delay. */
  maxAccountDelaySeconds: number;
}

export const SIGN_IN_POLICY: GuardPolicy = {
  name: 'sign-in', ipPoints: 100, ipWindowSeconds: 900, freeAttempts: 5, maxDelaySeconds: 900, freeAccountAttempts: 20, maxAccountDelaySeconds: 60,
};
/**
 * The second step of a sign-in (authenticator or recovery code, passkey): only someone who knew
 * the password gets here, so it is throttled like the password step, keyed by user id; a familiar
 * browser (svc_device) is spared the account-wide delay.
 */
export const SECOND_FACTOR_POLICY: GuardPolicy = {
  name: 'second-factor', ipPoints: 100, ipWindowSeconds: 900, freeAttempts: 5, maxDelaySeconds: 900, freeAccountAttempts: 20, maxAccountDelaySeconds: 60,
};
/** Passwordless passkey sign-in: names no account before the signature checks out, so per address only. */
export const PASSKEY_SIGN_IN_POLICY: GuardPolicy = {
  name: 'passkey', ipPoints: 100, ipWindowSeconds: 900, freeAttempts: 0, maxDelaySeconds: 0, freeAccountAttempts: 0, maxAccountDelaySeconds: 0,
};
/** Checking the current password of a signed-in user: per user and address only. */
export const PASSWORD_CHANGE_POLICY: GuardPolicy = {
  name: 'password-change', ipPoints: 100, ipWindowSeconds: 900, freeAttempts: 5, maxDelaySeconds: 900, freeAccountAttempts: 0, maxAccountDelaySeconds: 0,
};
/**
 * Reset requests: per address, and per account at one address. There is no account-wide refusal
 * (it would let anyone keep an owner from resetting); the number of reset mails an account
 * receives is bounded by RESET_MAIL_QUOTA instead, silently.
 */
export const RESET_POLICY: GuardPolicy = {
  name: 'reset', ipPoints: 20, ipWindowSeconds: 3600, freeAttempts: 3, maxDelaySeconds: 3600, freeAccountAttempts: 0, maxAccountDelaySeconds: 0,
};

/**
 * At most this many reset mails per account and hour. Each link is valid for an hour, so when
 * the quota is spent the owner's inbox still holds a working link from within that hour.
 */
export const RESET_MAIL_QUOTA = { name: 'reset-mail', points: 5, windowSeconds: 3600 };

/** Shared-link downloads (GET /r/{token}) per client address: enough for people, not for guessing tokens. */
export const SHARED_LINK_QUOTA = { name: 'shared-link', points: 60, windowSeconds: 60 };
/** AI assistant proposals per user (each one a paid provider call, or two with the repair round). */
export const AI_GENERATE_QUOTA = { name: 'ai-generate', points: 20, windowSeconds: 60 };

export function createQuota(redis: Redis, prefix: string, q: { name: string; points: number; windowSeconds: number }): Quota {
  const limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:rl:${q.name}`, points: q.points, duration: q.windowSeconds });
  return {
    async take(key) {
      try {
        await limiter.consume(digest(key));
        return true;
      } catch (err) {
        if (err instanceof RateLimiterRes) return false;
        throw err;
      }
    },
  };
}

/** How long an address an account signed in from stays familiar. */
const FAMILIAR_SECONDS = 90 * 24 * 3600;

/** Callers pass a normalised account name (normalizeEmail, or a user id). */
const digest = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

/** The key of a client address: an IPv4 address as is, an IPv6 address by its /64 network. */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  // A dotted IPv4 tail is two groups.
  const hex = ip.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a: string, b: string, c: string, d: string) =>
    `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`).toLowerCase();
  const [head = '', tail = ''] = hex.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = hex.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

function limited(seconds: number): DomainError {
  return new DomainError('rate_limited', `Too many attempts; retry in ${Math.ceil(seconds)} s`, { retryAfterSeconds: Math.max(1, Math.ceil(seconds)) });
}

/**
 * KEYS: throttle hashes. ARGV: now (ms), then free and cap (s) per key.
 * Refuses (returns the ms to wait) when any key is in its delay; otherwise counts the attempt on
 * every key, arms the next delay where the count passed its free allowance, and returns 0.
 */
const ATTEMPT_SCRIPT = `
local now = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local untilMs = tonumber(redis.call('HGET', key, 'until') or '0')
  if untilMs > now then return untilMs - now end
end
for i, key in ipairs(KEYS) do
  local free = tonumber(ARGV[2 * i])
  local cap = tonumber(ARGV[2 * i + 1])
  local n = redis.call('HINCRBY', key, 'count', 1)
  if n > free then
    local delay = math.min(cap, 2 ^ math.min(30, n - free - 1))
    redis.call('HSET', key, 'until', now + delay * 1000)
  end
  redis.call('EXPIRE', key, 86400)
end
return 0
`;

/** At most this many familiar addresses per account: the most recent ones. */
const FAMILIAR_MAX = 50;

/**
 * KEYS: the account's familiar-address hash. ARGV: address, tag, keep (s), max, now (s).
 * Remembers the address under the tag at `now`, and drops what no longer counts: entries of another
 * tag (an older password), entries older than keep, and the oldest beyond max.
 */
const REMEMBER_SCRIPT = `
local now = tonumber(ARGV[5])
local key, tag, keep, max = KEYS[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('HSET', key, ARGV[1], tag .. '|' .. now)
local all = redis.call('HGETALL', key)
local kept = {}
for i = 1, #all, 2 do
  local v = all[i + 1]
  local sep = string.find(v, '|', 1, true)
  local at = sep and tonumber(string.sub(v, sep + 1)) or 0
  if not sep or string.sub(v, 1, sep - 1) ~= tag or now - at > keep then
    redis.call('HDEL', key, all[i])
  else
    table.insert(kept, { all[i], at })
  end
end
if #kept > max then
  table.sort(kept, function(a, b) return a[2] < b[2] end)
  for i = 1, #kept - max do redis.call('HDEL', key, kept[i][1]) end
end
redis.call('EXPIRE', key, keep)
return #kept
`;

export function createAttemptGuard(redis: Redis, prefix: string, policy: GuardPolicy, clock: Clock = systemClock): AttemptGuard {
  const ipLimiter = new RateLimiterRedis({
    storeClient: redis, keyPrefix: `${prefix}:rl:${policy.name}:ip`, points: policy.ipPoints, duration: policy.ipWindowSeconds,
  });
  const familiarKey = (account: string) => `${prefix}:throttle:${policy.name}:familiar:${account}`;
  const isFamiliar = async (account: string, k: AttemptKeys): Promise<boolean> => {
    if (k.knownDevice) return true;
    if (!k.familiarTag) return false;
    const remembered = await redis.hget(familiarKey(account), addressKey(k.ip));
    const sep = remembered?.lastIndexOf('|') ?? -1;
    if (!remembered || sep < 0 || remembered.slice(0, sep) !== k.familiarTag) return false;
    return clock.now().getTime() / 1000 - Number(remembered.slice(sep + 1)) <= FAMILIAR_SECONDS;
  };
  const keysOf = async (k: AttemptKeys): Promise<Array<{ key: string; free: number; cap: number }>> => {
    if (!k.account) return [];
    const account = digest(k.account);
    const keys = [{ key: `${prefix}:throttle:${policy.name}:acct-ip:${account}:${addressKey(k.ip)}`, free: policy.freeAttempts, cap: policy.maxDelaySeconds }];
    if (policy.freeAccountAttempts > 0 && !(await isFamiliar(account, k))) {
      keys.push({ key: `${prefix}:throttle:${policy.name}:acct:${account}`, free: policy.freeAccountAttempts, cap: policy.maxAccountDelaySeconds });
    }
    return keys;
  };
  return {
    async attempt(k) {
      try {
        await ipLimiter.consume(addressKey(k.ip));
      } catch (err) {
        if (err instanceof RateLimiterRes) throw limited(err.msBeforeNext / 1000);
        throw err;
      }
      const keys = await keysOf(k);
      if (keys.length === 0) return;
      const args = [String(clock.now().getTime()), ...keys.flatMap((x) => [String(x.free), String(x.cap)])];
      const waitMs = Number(await redis.eval(ATTEMPT_SCRIPT, keys.length, ...keys.map((x) => x.key), ...args));
      if (waitMs > 0) throw limited(waitMs / 1000);
    },
    async succeeded(k) {
      if (!k.account) return;
      const account = digest(k.account);
      await redis.del(`${prefix}:throttle:${policy.name}:acct-ip:${account}:${addressKey(k.ip)}`, `${prefix}:throttle:${policy.name}:acct:${account}`);
      if (k.familiarTag) {
        await redis.eval(REMEMBER_SCRIPT, 1, familiarKey(account), addressKey(k.ip), k.familiarTag, String(FAMILIAR_SECONDS), String(FAMILIAR_MAX),
          String(Math.floor(clock.now().getTime() / 1000)));
      }
    },
  };
}
