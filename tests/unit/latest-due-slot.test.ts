/**
 * latestDueSlot: the one slot a due report runs for (the latest occurrence at or before now),
 * after short and long downtime, and on DST days in Europe/Berlin and America/New_York (the
 * instants follow the DST rule of schedule-dst.test.ts).
 */
import { latestDueSlot } from '../../src/domain/schedules/schedule.js';

const slot = (cron: string, timezone: string, due: string, now: string) =>
  latestDueSlot({ cron, timezone }, new Date(due), new Date(now))?.toISOString() ?? null;

describe('latestDueSlot', () => {
  it('is the due time itself when the next occurrence is still ahead', () => {
    expect(slot('*/5 * * * *', 'UTC', '2026-05-01T10:05:00Z', '2026-05-01T10:07:30Z')).toBe('2026-05-01T10:05:00.000Z');
  });

  it('is the due time when now is exactly the due time', () => {
    expect(slot('* * * * *', 'UTC', '2026-05-01T10:05:00Z', '2026-05-01T10:05:00Z')).toBe('2026-05-01T10:05:00.000Z');
  });

  it('is the due time when it still lies ahead (the tick claims only due reports)', () => {
    expect(slot('* * * * *', 'UTC', '2026-05-01T10:06:00Z', '2026-05-01T10:05:59Z')).toBe('2026-05-01T10:06:00.000Z');
  });

  it('is the latest minute after three hours of downtime on an every-minute schedule', () => {
    expect(slot('* * * * *', 'UTC', '2026-05-01T07:00:00Z', '2026-05-01T10:00:42Z')).toBe('2026-05-01T10:00:00.000Z');
  });

  it('counts an occurrence exactly at now', () => {
    expect(slot('0 * * * *', 'UTC', '2026-05-01T07:00:00Z', '2026-05-01T10:00:00Z')).toBe('2026-05-01T10:00:00.000Z');
  });

  it('walks from the due time when the last two hours hold no occurrence (daily, days behind)', () => {
    expect(slot('0 8 * * *', 'Europe/Berlin', '2026-04-20T06:00:00Z', '2026-04-24T12:00:00Z')).toBe('2026-04-24T06:00:00.000Z');
    expect(slot('0 8 * * *', 'Europe/Berlin', '2026-04-20T06:00:00Z', '2026-04-24T05:59:59Z')).toBe('2026-04-23T06:00:00.000Z');
  });

  it('keeps a due time older than the window when no later occurrence passed (monthly)', () => {
    expect(slot('0 0 1 * *', 'UTC', '2026-04-01T00:00:00Z', '2026-04-20T00:00:00Z')).toBe('2026-04-01T00:00:00.000Z');
  });

  it('is the first occurrence after an old due time when only one more passed (yearly-ish, long downtime)', () => {
    expect(slot('0 0 1 1 *', 'UTC', '2025-01-01T00:00:00Z', '2026-06-01T00:00:00Z')).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('latestDueSlot on DST days', () => {
  it('Europe/Berlin spring forward: a daily 02:30 is due at 03:00 CEST (01:00Z)', () => {
    expect(slot('30 2 * * *', 'Europe/Berlin', '2026-03-28T01:30:00Z', '2026-03-29T01:00:00Z')).toBe('2026-03-29T01:00:00.000Z');
    expect(slot('30 2 * * *', 'Europe/Berlin', '2026-03-28T01:30:00Z', '2026-03-29T00:59:00Z')).toBe('2026-03-28T01:30:00.000Z');
  });

  it('Europe/Berlin spring forward: every 30 minutes, 01:30 CET then 03:00 CEST', () => {
    expect(slot('*/30 * * * *', 'Europe/Berlin', '2026-03-28T23:00:00Z', '2026-03-29T00:59:00Z')).toBe('2026-03-29T00:30:00.000Z');
    expect(slot('*/30 * * * *', 'Europe/Berlin', '2026-03-28T23:00:00Z', '2026-03-29T01:10:00Z')).toBe('2026-03-29T01:00:00.000Z');
  });

  it('Europe/Berlin fall back: the repeated hour runs once, then 03:00 CET (02:00Z)', () => {
    // */30: 02:00 and 02:30 CEST (00:00Z, 00:30Z); the second pass (01:00Z, 01:30Z) does not run.
    expect(slot('*/30 * * * *', 'Europe/Berlin', '2026-10-25T00:00:00Z', '2026-10-25T01:45:00Z')).toBe('2026-10-25T00:30:00.000Z');
    expect(slot('*/30 * * * *', 'Europe/Berlin', '2026-10-25T00:00:00Z', '2026-10-25T02:00:00Z')).toBe('2026-10-25T02:00:00.000Z');
    expect(slot('30 2 * * *', 'Europe/Berlin', '2026-10-24T00:30:00Z', '2026-10-25T01:45:00Z')).toBe('2026-10-25T00:30:00.000Z');
  });

  it('America/New_York spring forward: a daily 02:30 is due at 03:00 EDT (07:00Z)', () => {
    expect(slot('30 2 * * *', 'America/New_York', '2026-03-07T07:30:00Z', '2026-03-08T07:05:00Z')).toBe('2026-03-08T07:00:00.000Z');
  });

  it('America/New_York fall back: a daily 01:30 runs once, at 01:30 EDT (05:30Z)', () => {
    expect(slot('30 1 * * *', 'America/New_York', '2026-10-31T05:30:00Z', '2026-11-01T06:45:00Z')).toBe('2026-11-01T05:30:00.000Z');
    expect(slot('0 * * * *', 'America/New_York', '2026-11-01T04:00:00Z', '2026-11-01T06:30:00Z')).toBe('2026-11-01T05:00:00.000Z');
    expect(slot('0 * * * *', 'America/New_York', '2026-11-01T04:00:00Z', '2026-11-01T07:00:00Z')).toBe('2026-11-01T07:00:00.000Z');
  });
});
