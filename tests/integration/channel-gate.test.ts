/**
 * The channel gate on a real Redis, its clock the test's: at most `limit` sends in flight per
 * channel (a place given back frees it, one a crashed worker kept frees itself after its lease),
 * and the circuit: `failures` in a row open it, it fails fast until its time is up, then lets one
 * trial send through at a time; the trial's success closes it, its failure opens it again, and a
 * trial given back without an answer lets the next one try at once.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createChannelGate } from '../../src/infra/queue/channel-gate.js';
import type { GatePass } from '../../src/domain/deliveries/ports.js';
import { newId } from '../../src/core/ids.js';
import { redisUrl } from '../support/env.js';

const prefix = `t_gate_${randomBytes(4).toString('hex')}`;
let redis: Redis;
let now = 1_000_000;

beforeAll(() => { redis = new Redis(redisUrl(), { maxRetriesPerRequest: 3 }); });
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const gate = () => createChannelGate({ redis, prefix, breaker: { failures: 3, openMs: 30_000 }, now: () => now, busyRetryMs: () => 700 });
const kind = (p: GatePass) => (p.kind === 'go' ? `go${p.probe ? ' (trial)' : ''}` : p.kind === 'busy' ? `busy ${p.retryInMs}` : `open until ${p.until}`);

it('lets at most the limit in flight per channel; a place given back, or left by a crashed worker past its lease, is free again', async () => {
  const g = gate();
  const channel = newId();
  const first = await g.enter(channel, 2);
  const second = await g.enter(channel, 2);
  expect([kind(first), kind(second), kind(await g.enter(channel, 2))]).toEqual(['go', 'go', 'busy 700']);
  // Another channel is not held up.
  const other = await g.enter(newId(), 2);
  expect(kind(other)).toBe('go');
  await (first as Extract<GatePass, { kind: 'go' }>).release(true);
  const third = await g.enter(channel, 2);
  expect(kind(third)).toBe('go');
  // The second's worker crashed without giving its place back: it frees itself after the 60-second lease.
  expect(kind(await g.enter(channel, 2))).toBe('busy 700');
  now += 61_000;
  expect(kind(await g.enter(channel, 2))).toBe('go');
  for (const p of [second, third, other]) if (p.kind === 'go') await p.release(true);
});

it('opens the circuit after three failures in a row, lets one trial through once its time is up, and closes it on the trial\'s success', async () => {
  const g = gate();
  const channel = newId();
  await g.recordFailure(channel);
  await g.recordFailure(channel);
  expect(await g.isOpen(channel)).toBe(false);
  // A send the peer took in between resets the run of failures.
  const ok = await g.enter(channel, 4);
  if (ok.kind === 'go') await ok.release(true);
  await g.recordFailure(channel);
  await g.recordFailure(channel);
  expect(await g.isOpen(channel)).toBe(false);
  await g.recordFailure(channel);
  expect(await g.isOpen(channel)).toBe(true);
  expect(kind(await g.enter(channel, 4))).toBe(`open until ${now + 30_000}`);

  now += 30_001;
  const trial = await g.enter(channel, 4);
  expect(kind(trial)).toBe('go (trial)');
  // One trial at a time: the others wait their turn as on a busy channel (the trial decides for them
  // within its send), not until the trial's 60-second lease is over.
  expect(kind(await g.enter(channel, 4))).toBe('busy 700');
  await (trial as Extract<GatePass, { kind: 'go' }>).release(true);
  expect(await g.isOpen(channel)).toBe(false);
  const after = await g.enter(channel, 4);
  expect(kind(after)).toBe('go');
  if (after.kind === 'go') await after.release(true);
});

it('opens the circuit again when the trial fails', async () => {
  const g = gate();
  const channel = newId();
  for (let i = 0; i < 3; i += 1) await g.recordFailure(channel);
  now += 30_001;
  const trial = await g.enter(channel, 4);
  expect(kind(trial)).toBe('go (trial)');
  await g.recordFailure(channel);
  if (trial.kind === 'go') await trial.release(false);
  expect(kind(await g.enter(channel, 4))).toBe(`open until ${now + 30_000}`);
});

it('lets the next trial through at once when a trial is given back without an answer (its attempt gone, the run cancelled, the worker stopping)', async () => {
  const g = gate();
  const channel = newId();
  // A send that went before the circuit opened, still in flight.
  const early = await g.enter(channel, 4);
  expect(kind(early)).toBe('go');
  for (let i = 0; i < 3; i += 1) await g.recordFailure(channel);
  now += 30_001;
  const trial = await g.enter(channel, 4);
  expect(kind(trial)).toBe('go (trial)');
  expect(kind(await g.enter(channel, 4))).toBe('busy 700');
  // That earlier send given back unanswered leaves the trial alone.
  if (early.kind === 'go') await early.release(false);
  expect(kind(await g.enter(channel, 4))).toBe('busy 700');
  // The trial given back unanswered: the next one may try at once, not after the trial's lease.
  if (trial.kind === 'go') await trial.release(false);
  const next = await g.enter(channel, 4);
  expect(kind(next)).toBe('go (trial)');
  if (next.kind === 'go') await next.release(true);
  expect(await g.isOpen(channel)).toBe(false);
  const after = await g.enter(channel, 4);
  expect(kind(after)).toBe('go');
  if (after.kind === 'go') await after.release(true);
});
