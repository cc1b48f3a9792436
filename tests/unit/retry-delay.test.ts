/**
 * A delivery's retry waits: exponential steps with equal jitter, so a retry never follows at
 * once (the floor is half the step), and a Retry-After is honoured up to the maximum.
 */
import { retryDelay } from '../../src/domain/deliveries/send-with-retries.js';

const policy = { baseDelayMs: 2000, maxDelayMs: 60_000 };

it('waits at least half of the step and at most the step, the step doubling per send', () => {
  expect([1, 2, 3].map((sends) => retryDelay(policy, sends, undefined, 0))).toEqual([1000, 2000, 4000]);
  expect([1, 2, 3].map((sends) => retryDelay(policy, sends, undefined, 0.999999)).map(Math.round)).toEqual([2000, 4000, 8000]);
  expect(retryDelay(policy, 2, undefined, 0.5)).toBe(3000);
});

it('never waits longer than the maximum, and honours a longer Retry-After up to it', () => {
  expect([0, 0.99].map((r) => retryDelay(policy, 10, undefined, r))).toEqual([30_000, 59_700]); // the step stops at the maximum
  expect(retryDelay(policy, 1, 30_000, 0)).toBe(30_000);
  expect(retryDelay(policy, 1, 600_000, 0)).toBe(60_000);
  expect(retryDelay(policy, 3, 10, 0)).toBe(4000);
});
