/**
 * The abuse guard's budgets on a real Redis, with small numbers: the per-address budget holds
 * across accounts (an address cannot guess at many accounts), and a quota is per key.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createAttemptGuard, createQuota, type GuardPolicy } from '../../src/infra/ratelimit/attempt-guard.js';
import { DomainError } from '../../src/core/errors.js';
import { redisUrl } from '../support/env.js';

const prefix = `t_guard_${randomBytes(4).toString('hex')}`;
let redis: Redis;

beforeAll(() => { redis = new Redis(redisUrl(), { maxRetriesPerRequest: 3 }); });
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const POLICY: GuardPolicy = {
  name: 'small', ipPoints: 3, ipWindowSeconds: 60, freeAttempts: 5, maxDelaySeconds: 60, freeAccountAttempts: 0, maxAccountDelaySeconds: 0,
};

async function outcome(p: Promise<void>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof DomainError) return `${err.code} ${err.extras.retryAfterSeconds !== undefined ? 'with' : 'without'} retry-after`;
    throw err;
  }
}

it('charges every attempt from an address to one budget, whichever account it names', async () => {
  const guard = createAttemptGuard(redis, prefix, POLICY);
  const ip = '192.0.2.200';
  const answers = [];
  for (const account of ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com']) {
    answers.push(await outcome(guard.attempt({ account, ip })));
  }
  expect(answers).toEqual(['ok', 'ok', 'ok', 'rate_limited with retry-after']);
  // Another address has its own budget; an IPv6 client is counted by its /64.
  expect(await outcome(guard.attempt({ account: 'd@example.com', ip: '192.0.2.201' }))).toBe('ok');
  for (const host of ['1', '2', '3']) expect(await outcome(guard.attempt({ account: 'e@example.com', ip: `2001:db8:1:2::${host}` }))).toBe('ok');
  expect(await outcome(guard.attempt({ account: 'f@example.com', ip: '2001:db8:1:2:ffff::9' }))).toBe('rate_limited with retry-after');
});

it('gives each key of a quota its own allowance', async () => {
  const quota = createQuota(redis, prefix, { name: 'small-quota', points: 2, windowSeconds: 60 });
  expect([await quota.take('x'), await quota.take('x'), await quota.take('x')]).toEqual([true, true, false]);
  expect(await quota.take('y')).toBe(true);
});

it('remembers familiar addresses under the current password only, at most 50 per account', async () => {
  const guard = createAttemptGuard(redis, prefix, { ...POLICY, name: 'familiar', ipPoints: 1000, freeAccountAttempts: 20, maxAccountDelaySeconds: 60 });
  const account = 'roamer@example.com';
  for (let i = 1; i <= 55; i++) await guard.succeeded({ account, ip: `198.51.100.${i}`, familiarTag: 'user-1:password-A' });
  const [key] = await redis.keys(`${prefix}:throttle:familiar:familiar:*`);
  expect(await redis.hlen(key!)).toBe(50);
  // A new password: the addresses remembered under the old one are dropped.
  await guard.succeeded({ account, ip: '198.51.100.200', familiarTag: 'user-1:password-B' });
  expect(await redis.hkeys(key!)).toEqual(['198.51.100.200']);
  expect(await redis.ttl(key!)).toBeGreaterThan(89 * 24 * 3600);
});
