/** The slot a due report runs for: its latest time at or before now, once, however long the downtime. */
import { latestDueSlot } from '../../src/domain/schedules/schedule.js';

const at = (s: string) => new Date(s);
const iso = (d: Date) => d.toISOString();

it('is the due time itself when nothing later has passed', () => {
  expect(iso(latestDueSlot({ cron: '0 8 * * *', timezone: 'UTC' }, at('2026-11-22T08:00:00Z'), at('2026-11-22T08:00:05Z')))).toBe('2026-11-22T08:00:00.000Z');
});

it('is the latest minute after three hours of downtime, for an every-minute schedule', () => {
  expect(iso(latestDueSlot({ cron: '* * * * *', timezone: 'UTC' }, at('2026-11-22T08:00:00Z'), at('2026-11-22T11:17:42Z')))).toBe('2026-11-22T11:17:00.000Z');
});

it('is the latest day after a week of downtime, for a daily schedule (beyond the two-hour look-back)', () => {
  expect(iso(latestDueSlot({ cron: '0 8 * * *', timezone: 'Europe/Berlin' }, at('2026-11-15T07:00:00Z'), at('2026-11-22T10:00:00Z')))).toBe('2026-11-22T07:00:00.000Z');
});

it('follows DST: the Berlin spring-forward 02:30 is 03:00 CEST, the New York fall-back 01:30 is its first occurrence', () => {
  expect(iso(latestDueSlot({ cron: '30 2 * * *', timezone: 'Europe/Berlin' }, at('2026-03-28T01:30:00Z'), at('2026-03-29T05:00:00Z')))).toBe('2026-03-29T01:00:00.000Z');
  expect(iso(latestDueSlot({ cron: '30 1 * * *', timezone: 'America/New_York' }, at('2026-10-31T05:30:00Z'), at('2026-11-01T07:00:00Z')))).toBe('2026-11-01T05:30:00.000Z');
});

it('answers the due time when it lies ahead of now', () => {
  expect(iso(latestDueSlot({ cron: '0 8 * * *', timezone: 'UTC' }, at('2026-11-23T08:00:00Z'), at('2026-11-22T10:00:00Z')))).toBe('2026-11-23T08:00:00.000Z');
});
