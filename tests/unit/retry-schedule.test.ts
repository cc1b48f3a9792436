/**
 * The automatic retry schedule (nextRetry) and how a run ends from its attempts
 * (deliveredOutcome): the default schedule (SVC_DELIVERY_RETRY_SCHEDULE 5s,5m,30m,2h,5h,10h)
 * gets a delivery through an outage of 90 s with no one asking; a longer Retry-After wins; the
 * maximum age and the end of the schedule stop it; a permanent failure is never retried.
 */
import { nextRetry, retryDelay } from '../../src/domain/deliveries/send-with-retries.js';
import { deliveredOutcome, tallyOf } from '../../src/domain/deliveries/settle-run.js';
import { deliverySettings } from '../../src/infra/config/outbound.js';
import type { RunStep } from '../../src/domain/runs/model.js';

const parse = (v: string | undefined) => deliverySettings.deliveryRetrySchedule.parse(v, { fail: (m: string) => { throw new Error(m); } } as never);
const DEFAULT = { waitsMs: parse(undefined), maxAgeMs: 24 * 3_600_000 };
const transient = { transient: true, retryAfterMs: null };

it('reads the default schedule as Standard Webhooks senders retry, and refuses waits out of bounds', () => {
  expect(DEFAULT.waitsMs).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000]);
  expect(parse('90s, 2m,1h')).toEqual([90_000, 120_000, 3_600_000]);
  expect(parse('off')).toEqual([]);
  expect(() => parse('500ms')).toThrow(/from 1s to 24h/);
  expect(() => parse('25h')).toThrow(/from 1s to 24h/);
  expect(() => parse('soon')).toThrow(/write 90s, 5m or 2h/);
});

it('gets a delivery through a 90-second outage with the default settings, without anyone asking', () => {
  // The receiver is down from t=0 to t=90 s. The quick retries (4 sends, backoff 2 s, equal jitter:
  // at most 2 + 4 + 8 s of waits plus four 30-second silences) end inside the outage at worst at 134 s;
  // at best at 3.5 s. Either way the schedule's steps that follow come after the outage.
  const created = new Date(0);
  const quickWaits = [1, 2, 3].map((sends) => retryDelay({ baseDelayMs: 2000, maxDelayMs: 60_000 }, sends, null, 0));
  const quickEnd = quickWaits.reduce((a, b) => a + b, 0); // the fastest the quick retries can end (receiver refusing at once)
  let at = new Date(quickEnd);
  let attempt = { retries: 0, createdAt: created };
  const tries: number[] = [];
  while (at.getTime() < 90_000) {
    const next = nextRetry(DEFAULT, attempt, transient, at);
    expect(next).not.toBeNull();
    tries.push(next!.at.getTime());
    attempt = { retries: next!.retries, createdAt: created };
    at = next!.at;
  }
  // 5 s after the quick ones, then 5 min: the second automatic retry lands after the outage and is sent.
  expect(tries).toEqual([quickEnd + 5_000, quickEnd + 5_000 + 300_000]);
  expect(tries.at(-1)!).toBeGreaterThan(90_000);
});

it('honours a longer Retry-After, and an open circuit\'s end, over the schedule\'s wait', () => {
  const now = new Date(1_000_000);
  const attempt = { retries: 0, createdAt: new Date(0) };
  expect(nextRetry(DEFAULT, attempt, { transient: true, retryAfterMs: 120_000 }, now)!.at.getTime()).toBe(1_120_000);
  expect(nextRetry(DEFAULT, attempt, { transient: true, retryAfterMs: 1_000 }, now)!.at.getTime()).toBe(1_005_000);
  expect(nextRetry(DEFAULT, attempt, { ...transient, notBefore: 1_030_000 }, now)!.at.getTime()).toBe(1_030_000);
});

it('stops at the end of the schedule, past the maximum age, and for a permanent failure', () => {
  const now = new Date(3_600_000);
  expect(nextRetry(DEFAULT, { retries: 6, createdAt: new Date(0) }, transient, now)).toBeNull();
  // 10 h after an attempt planned 20 h ago would be 30 h after it: past the 24 h maximum.
  expect(nextRetry(DEFAULT, { retries: 5, createdAt: new Date(now.getTime() - 20 * 3_600_000) }, transient, now)).toBeNull();
  expect(nextRetry(DEFAULT, { retries: 0, createdAt: new Date(0) }, { transient: false, retryAfterMs: null }, now)).toBeNull();
  expect(nextRetry({ waitsMs: [], maxAgeMs: DEFAULT.maxAgeMs }, { retries: 0, createdAt: new Date(0) }, transient, now)).toBeNull();
  expect(nextRetry(DEFAULT, { retries: 2, createdAt: new Date(0) }, transient, now)).toEqual({ at: new Date(now.getTime() + 1_800_000), retries: 3 });
});

describe('a run\'s end from its attempts', () => {
  const now = new Date(5000);
  const steps: RunStep[] = [
    { name: 'query', status: 'success', startedAt: new Date(0), finishedAt: new Date(1), error: null },
    { name: 'delivery', status: 'running', startedAt: new Date(2), finishedAt: null, error: null },
  ];
  const run = { conditionMet: null, cancelRequestedAt: null, steps };
  const of = (...statuses: string[]) => tallyOf(statuses.map((status) => ({ status })));

  it('waits while an attempt is pending, sending or queued', () => {
    for (const open of ['pending', 'sending', 'queued']) expect(deliveredOutcome(run, of('sent', open), now)).toBeUndefined();
  });

  it('ends success, partial or failed from the sends, with the delivery step\'s tally', () => {
    expect(deliveredOutcome(run, of('sent', 'preview'), now)).toMatchObject({ status: 'success', error: null });
    expect(deliveredOutcome({ ...run, conditionMet: false }, of('sent'), now)?.status).toBe('skipped');
    const partial = deliveredOutcome(run, of('sent', 'failed'), now)!;
    expect(partial).toMatchObject({ status: 'partial', error: null });
    expect(partial.steps[1]).toMatchObject({ status: 'failed', finishedAt: now, error: { code: 'delivery.partial' }, detail: { sent: 1, failed: 1, previewed: 0 } });
    expect(deliveredOutcome(run, of('failed', 'failed'), now)).toMatchObject({ status: 'failed', error: { code: 'delivery.all_failed' } });
    expect(partial.steps[0]).toBe(steps[0]);
  });

  it('ends cancelled when a cancellation was asked for meanwhile', () => {
    expect(deliveredOutcome({ ...run, cancelRequestedAt: new Date(3) }, of('sent', 'failed'), now))
      .toMatchObject({ status: 'cancelled', error: { code: 'run.cancelled' }, steps: [expect.anything(), expect.objectContaining({ status: 'cancelled' })] });
  });
});
