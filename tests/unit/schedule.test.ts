/**
 * Schedules: which crons and zones are accepted (with the field and message of each refusal),
 * descriptions, occurrences strictly after `from`, rare and impossible dates, and the preview
 * service with the injected clock.
 */
import { manualClock } from '../../src/core/clock.js';
import { DomainError } from '../../src/core/errors.js';
import {
  describeSchedule, nextOccurrence, nextOccurrences, scheduleProblems, validateSchedule,
} from '../../src/domain/schedules/schedule.js';
import { createSchedulesService } from '../../src/domain/schedules/schedules-service.js';

const problemsOf = (cron: string, timezone = 'UTC') => scheduleProblems({ cron, timezone });
const caught = (fn: () => unknown): DomainError => {
  try { fn(); } catch (err) { if (err instanceof DomainError) return err; throw err; }
  throw new Error('expected a DomainError');
};

describe('cron validation', () => {
  it.each([
    '0 8 * * 1-5', '*/15 * * * *', '0 0 1 1 *', '0 8 * * MON-FRI', '0 8 * jan,Feb sun', '0 8 * * FRI-SUN', '0 0 * * 7',
    '0-30/10 8-18 * * 1-5', '5,35 */2 1-7 * *', '  0   8 * *  *  ', '0 0 29 2 *',
    '@hourly', '@daily', '@midnight', '@weekly', '@monthly', '@yearly', '@ANNUALLY',
  ])('accepts %p', (cron) => {
    expect(problemsOf(cron)).toEqual([]);
  });

  it.each([
    ['', /is empty/],
    ['0 8 * *', /five fields .*not 4/],
    ['0 0 8 * * *', /not 6 \(seconds and year fields are not supported\)/],
    ['0 8 * * 1-5 2026', /not 6/],
    ['@reboot', /@reboot is not supported/],
    ['@every 5m', /is not supported/],
    ['60 * * * *', /minute field: 60 is out of range 0-59/],
    ['0 24 * * *', /hour field: 24 is out of range 0-23/],
    ['0 0 0 * *', /day-of-month field: 0 is out of range 1-31/],
    ['0 0 * 13 *', /month field: 13 is out of range 1-12/],
    ['0 0 * * 8', /day-of-week field: 8 is out of range 0-7/],
    ['0 0 * * 5-1', /range "5-1" goes backwards/],
    ['*/0 * * * *', /step "0" .*from 1 to 59/],
    ['5/15 * * * *', /a step needs \* or a range \(\*\/15 or 5-59\/15\)/],
    ['0 0 L * *', /non-standard extension/],
    ['0 0 15W * *', /non-standard extension/],
    ['0 0 * * 1#2', /non-standard extension/],
    ['0 0 ? * *', /non-standard extension/],
    ['0 0 * * +1', /non-standard extension/],
    ['0 0 1,,2 * *', /empty list item/],
    ['0 0 * * MONDAY', /"MONDAY" is not valid/],
    ['0 0 30 2 *', /never runs/],
    ['0 0 31 4,6,9,11 *', /never runs/],
  ])('refuses %p on field cron', (cron, message) => {
    const problems = problemsOf(cron);
    expect(problems).toEqual([{ field: 'cron', code: 'validation.invalid', message: expect.stringMatching(message) }]);
  });
});

describe('time zone validation', () => {
  it.each(['Europe/Berlin', 'America/Argentina/Buenos_Aires', 'UTC', 'Etc/UTC', 'Etc/GMT+5', 'Asia/Kathmandu', 'Asia/Calcutta'])(
    'accepts %p', (timezone) => {
      expect(scheduleProblems({ cron: '0 8 * * *', timezone })).toEqual([]);
    },
  );

  it.each([
    ['Mars/Olympus_Mons', /is not an IANA time zone name/],
    ['+01:00', /is not an IANA time zone name/],
    ['', /is not an IANA time zone name/],
    ['Europe/Berlin ', /is not an IANA time zone name/],
    ['europe/berlin', /must be spelled Europe\/Berlin/],
  ])('refuses %p on field timezone', (timezone, message) => {
    expect(scheduleProblems({ cron: '0 8 * * *', timezone }))
      .toEqual([{ field: 'timezone', code: 'validation.invalid', message: expect.stringMatching(message) }]);
  });

  it('names both fields under a path, for a schedule inside a report', () => {
    const err = caught(() => validateSchedule({ cron: '0 8 * *', timezone: 'Nowhere/City' }, 'schedule'));
    expect(err.code).toBe('validation.failed');
    expect(err.extras.errors?.map((e) => e.field)).toEqual(['schedule.cron', 'schedule.timezone']);
  });
});

describe('descriptions', () => {
  it.each([
    ['0 8 * * 1-5', 'At 08:00, Monday through Friday'],
    ['0 8 * * MON-FRI', 'At 08:00, Monday through Friday'],
    ['*/15 * * * *', 'Every 15 minutes'],
    ['30 2 * * *', 'At 02:30'],
    ['@daily', 'At 00:00'],
    ['0 9 1 * *', 'At 09:00, on day 1 of the month'],
  ])('describes %p as %p', (cron, text) => {
    expect(describeSchedule({ cron, timezone: 'Europe/Berlin' })).toBe(text);
  });
});

describe('occurrences', () => {
  const weekdays = { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' };

  it('are strictly after from, also when from is an occurrence', () => {
    expect(nextOccurrence(weekdays, new Date('2026-11-23T07:00:00.000Z'))?.toISOString()).toBe('2026-11-24T07:00:00.000Z');
    expect(nextOccurrence(weekdays, new Date('2026-11-23T06:59:59.999Z'))?.toISOString()).toBe('2026-11-23T07:00:00.000Z');
  });

  it('follow the day fields (Friday, then Monday)', () => {
    expect(nextOccurrences(weekdays, new Date('2026-11-27T12:00:00Z'), 2).map((d) => d.toISOString()))
      .toEqual(['2026-11-30T07:00:00.000Z', '2026-12-01T07:00:00.000Z']);
  });

  it('run on either day when both day fields are restricted', () => {
    // The 1st of December 2026 is a Tuesday; Mondays are the 7th and 14th.
    expect(nextOccurrences({ cron: '0 0 1 * 1', timezone: 'UTC' }, new Date('2026-11-30T12:00:00Z'), 3).map((d) => d.toISOString()))
      .toEqual(['2026-12-01T00:00:00.000Z', '2026-12-07T00:00:00.000Z', '2026-12-14T00:00:00.000Z']);
  });

  it('find the rare 29 February quickly, skipping 2100 and 2200', () => {
    const leap = nextOccurrences({ cron: '0 0 29 2 *', timezone: 'UTC' }, new Date('2026-01-01T00:00:00Z'), 50).map((d) => d.toISOString());
    expect(leap.slice(0, 3)).toEqual(['2028-02-29T00:00:00.000Z', '2032-02-29T00:00:00.000Z', '2036-02-29T00:00:00.000Z']);
    expect(leap).toHaveLength(50);
    expect(leap.some((t) => t.startsWith('2100') || t.startsWith('2200'))).toBe(false);
    expect(leap.at(-1)).toBe('2232-02-29T00:00:00.000Z');
  });

  it('end before the year 3000 (the library\'s horizon) instead of searching on', () => {
    expect(nextOccurrences({ cron: '0 0 29 2 *', timezone: 'UTC' }, new Date('2990-01-01T00:00:00Z'), 5).map((d) => d.getUTCFullYear()))
      .toEqual([2992, 2996]);
  });

  it('refuse a cron that never runs, before searching at all', () => {
    const err = caught(() => nextOccurrences({ cron: '0 0 30 2 *', timezone: 'UTC' }, new Date(), 5));
    expect(err.extras.errors).toEqual([expect.objectContaining({ field: 'cron', message: expect.stringMatching(/never runs/) })]);
  });
});

describe('the preview service', () => {
  const clock = manualClock(new Date('2026-11-22T08:00:00.000Z')); // a Sunday
  const service = createSchedulesService({ clock });

  it('answers 5 times after the clock\'s now by default', () => {
    const p = service.preview({ cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' });
    expect(p.description).toBe('At 08:00, Monday through Friday');
    expect(p.next.map((d) => d.toISOString())).toEqual([
      '2026-11-23T07:00:00.000Z', '2026-11-24T07:00:00.000Z', '2026-11-25T07:00:00.000Z', '2026-11-26T07:00:00.000Z', '2026-11-27T07:00:00.000Z',
    ]);
  });

  it('honours count and from', () => {
    const p = service.preview({ cron: '@hourly', timezone: 'UTC', count: 2, from: new Date('2030-01-01T10:30:00Z') });
    expect(p.next.map((d) => d.toISOString())).toEqual(['2030-01-01T11:00:00.000Z', '2030-01-01T12:00:00.000Z']);
  });

  it('refuses a count outside 1..50 and a from outside 1970..2999, with the schedule\'s own problems', () => {
    const err = caught(() => service.preview({ cron: '0 8 * *', timezone: 'UTC', count: 51, from: new Date('1969-12-31T23:59:59Z') }));
    expect(err.extras.errors).toEqual([
      expect.objectContaining({ field: 'cron', code: 'validation.invalid' }),
      expect.objectContaining({ field: 'count', code: 'validation.range' }),
      expect.objectContaining({ field: 'from', code: 'validation.range' }),
    ]);
  });
});
