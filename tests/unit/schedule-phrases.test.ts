/**
 * English schedule phrases to cron without a provider (src/domain/assistant/schedule-phrases.ts):
 * a table of phrases and the exact crons they answer, a table of phrases that must answer unknown
 * (no exact cron in Herald's dialect, or not understood), every answer accepted by the schedules
 * feature's own validation, and the next times of some answers read back against the phrase.
 */
import { parseSchedulePhrase } from '../../src/domain/assistant/schedule-phrases.js';
import { nextOccurrences, scheduleProblems } from '../../src/domain/schedules/schedule.js';

const UNDERSTOOD: [phrase: string, cron: string][] = [
  // The phrases of issue 22
  ['every weekday at 8am', '0 8 * * 1-5'],
  ['every 15 minutes between 9 and 17 on weekdays', '*/15 9-16 * * 1-5'],
  ['twice a day at 8 and 20', '0 8,20 * * *'],
  ['every Sunday night', '0 22 * * 0'],
  ['every day at noon', '0 12 * * *'],
  ['daily at midnight', '0 0 * * *'],
  ['every hour', '0 * * * *'],
  ['hourly at :15', '15 * * * *'],
  ['every 5 minutes', '*/5 * * * *'],
  ['every 2 hours', '0 */2 * * *'],
  ['every Monday and Thursday at 7:45 pm', '45 19 * * 1,4'],
  ['weekends at 10', '0 10 * * 0,6'],
  ['on the 1st and 15th at 6am', '0 6 1,15 * *'],
  ['every month on the 3rd at 14:00', '0 14 3 * *'],
  ['every quarter on the first day at 8', '0 8 1 1,4,7,10 *'],
  ['every year on January 1 at 00:00', '0 0 1 1 *'],
  ['mondays at 9', '0 9 * * 1'],
  ['every weekday morning', '0 8 * * 1-5'],
  ['every evening', '0 18 * * *'],
  ['at 5:30 pm every day', '30 17 * * *'],
  ['every 30 minutes on weekdays', '*/30 * * * 1-5'],
  ['every 10 minutes from 8am to 6pm', '*/10 8-17 * * *'],
  ['weekdays at 8:00 and 17:00', '0 8,17 * * 1-5'],
  ['every tuesday at 14h', '0 14 * * 2'],
  ['each friday 16:30', '30 16 * * 5'],
  ['every other hour', '0 */2 * * *'],
  ['noon on weekdays', '0 12 * * 1-5'],
  ['every day at 7 and 19', '0 7,19 * * *'],
  ['first day of every month at 6', '0 6 1 * *'],
  ['on the 15th of each month at 9:00', '0 9 15 * *'],
  // Case, spacing and punctuation
  ['EVERY   Weekday ,  AT 8 A.M.', '0 8 * * 1-5'],
  ['Every weekday at 8 a.m.!', '0 8 * * 1-5'],
  ['  every minute  ', '* * * * *'],
  // Intervals: steps that divide the hour or the day
  ['every 20 min', '*/20 * * * *'],
  ['every 2h', '0 */2 * * *'],
  ['every half hour', '*/30 * * * *'],
  ['every quarter of an hour', '*/15 * * * *'],
  ['every 60 minutes', '0 * * * *'],
  ['every 120 minutes', '0 */2 * * *'],
  ['every 2nd hour', '0 */2 * * *'],
  ['every 3 hours', '0 */3 * * *'],
  ['every 12 hours', '0 */12 * * *'],
  ['every hour on the hour', '0 * * * *'],
  ['every 2 hours at :30', '30 */2 * * *'],
  ['hourly at 15 minutes past the hour', '15 * * * *'],
  // Windows: an hour step includes the end hour, a minute step stops a step before it
  ['every hour between 9 and 17', '0 9-17 * * *'],
  ['every hour from 9am to 5pm on weekdays', '0 9-17 * * 1-5'],
  ['every 2 hours from 9 to 5 on weekdays', '0 9-17/2 * * 1-5'],
  ['hourly at :30 between 9 and 17', '30 9-16 * * *'],
  ['every 15 minutes from 9am to 5', '*/15 9-16 * * *'],
  ['every 30 minutes between 8 and 12', '*/30 8-11 * * *'],
  // Days of the week: lists, ranges (wrapping past Sunday), groups
  ['every monday, wednesday, and friday at 10', '0 10 * * 1,3,5'],
  ['mon-fri 9am', '0 9 * * 1-5'],
  ['from monday to friday at 9:30', '30 9 * * 1-5'],
  ['tue & thu at 18:00', '0 18 * * 2,4'],
  ['saturday to monday at 10', '0 10 * * 0,1,6'],
  ['every weekend morning', '0 8 * * 0,6'],
  // Parts of the day: their default times, and times read in them
  ['every wednesday afternoon at 3', '0 15 * * 3'],
  ['every friday evening at 6:30', '30 18 * * 5'],
  ['every night at 11', '0 23 * * *'],
  ['every day at 9 in the evening', '0 21 * * *'],
  ['at 9 every morning', '0 9 * * *'],
  ['every afternoon', '0 14 * * *'],
  // Times: am/pm, 24-hour forms, several a day
  ['every weekday at 7.30am', '30 7 * * 1-5'],
  ['every day at 7:30 p.m.', '30 19 * * *'],
  ['at 8h30 daily', '30 8 * * *'],
  ['every day at 8 AM and 8 PM', '0 8,20 * * *'],
  ['every day at 9am and 5pm', '0 9,17 * * *'],
  ['every day at 8:00 and 8:30', '0,30 8 * * *'],
  ['twice daily at 9 and 21', '0 9,21 * * *'],
  ['3 times a day at 8, 12 and 18', '0 8,12,18 * * *'],
  ['once a day at 6', '0 6 * * *'],
  ['at half past 9 every day', '30 9 * * *'],
  ['quarter to 9 on weekdays', '45 8 * * 1-5'],
  ['on sundays at 12am', '0 0 * * 0'],
  ['on sundays at 12pm', '0 12 * * 0'],
  ['every weekday at 9 o\'clock', '0 9 * * 1-5'],
  ['every business day at 7', '0 7 * * 1-5'],
  ['at midnight on saturdays', '0 0 * * 6'],
  // Days of the month, months, periods
  ['the 1st of every month at 9', '0 9 1 * *'],
  ['on day 3 at 9', '0 9 3 * *'],
  ['monthly', '0 0 1 * *'],
  ['quarterly', '0 0 1 1,4,7,10 *'],
  ['yearly', '0 0 1 1 *'],
  ['annually at 6', '0 6 1 1 *'],
  ['every month at 9', '0 9 1 * *'],
  ['every 3 months on the 1st', '0 0 1 1,4,7,10 *'],
  ['every 6 months on the 10th at 12:00', '0 12 10 1,7 *'],
  ['every 2 months on the 1st at 9', '0 9 1 1,3,5,7,9,11 *'],
  ['jan 1st and jul 1st at 9', '0 9 1 1,7 *'],
  ['on 1 january', '0 0 1 1 *'],
  ['on the 31st of december at 23:59', '59 23 31 12 *'],
  ['every day in december at 9', '0 9 * 12 *'],
  ['every 5 minutes in january', '*/5 * * 1 *'],
  ['every monday in january and july at 8', '0 8 * 1,7 1'],
  ['weekly on monday at 9', '0 9 * * 1'],
  ['every week on fridays at 17:00', '0 17 * * 5'],
  ['on the 28th at 23:00', '0 23 28 * *'],
  ['on the second of each month at 7', '0 7 2 * *'],
];

const NOT_UNDERSTOOD: string[] = [
  'every 90 minutes',
  'every second tuesday',
  'first Monday of the month at 09:30',
  'last day of the month at 23:00',
  'every last friday',
  'asdf',
  '',
  'at 25:00 every day',
  'every day at 24:00',
  'every day at 13pm',
  'every day at 9:75',
  'every 7 minutes between 9 and 17',
  'every 45 minutes',
  'every 5 hours',
  'every 24 hours',
  'every other day',
  'every 2 weeks',
  'every second',
  'in 5 minutes',
  'tomorrow at 9',
  'at 9',
  'twice a day',
  'twice a day at 8',
  'weekly',
  'every day at 8 and 10pm',
  'every day at 8:15 and 17:30',
  'every monday and on the 1st at 9',
  'every monday at 9 and every friday at 17',
  'every 15 minutes between 9 and 17 and on weekends',
  'every 15 minutes between 9:30 and 17',
  'every 30 minutes between 22 and 6',
  'every 5 minutes at 9',
  'every evening at 4',
  'every morning at 14:00',
  'every evening at 08:00',
  'every night at 1',
  'every sunday night at midnight',
  'every day except weekends',
  'every weekday at 8am utc',
  'on the 31st of every month',
  'every month on the 30th',
  'every year on february 29',
  'january 1 and july 15',
  'every year in march',
  'every year on the 3rd',
  'every day on mondays',
  'daily at 9 daily',
  'every 15 minutes during business hours',
  'at :15',
  'from 9 to 5 on weekdays',
];

/** The cron of a phrase of the table (fails the test when it answers unknown). */
const cronOf = (phrase: string): string => {
  const answer = parseSchedulePhrase(phrase);
  if (!('cron' in answer)) throw new Error(`"${phrase}" answered unknown`);
  return answer.cron;
};

/** Thursday 1 January 2026, 00:00 UTC: where the next times are counted from. */
const FROM = new Date('2026-01-01T00:00:00Z');
const next = (phrase: string, count: number): Date[] => nextOccurrences({ cron: cronOf(phrase), timezone: 'UTC' }, FROM, count);
const hhmm = (d: Date): string => d.toISOString().slice(11, 16);
const iso = (d: Date): string => d.toISOString();

describe('phrases with an exact cron', () => {
  it('has at least 50 of them, each phrase once', () => {
    expect(UNDERSTOOD.length).toBeGreaterThanOrEqual(50);
    expect(new Set(UNDERSTOOD.map(([p]) => p)).size).toBe(UNDERSTOOD.length);
  });

  it.each(UNDERSTOOD)('%p → %p', (phrase, cron) => {
    expect(parseSchedulePhrase(phrase)).toEqual({ cron });
  });
});

describe('phrases answered unknown', () => {
  it('has at least 10 of them', () => {
    expect(NOT_UNDERSTOOD.length).toBeGreaterThanOrEqual(10);
  });

  it.each(NOT_UNDERSTOOD)('%p', (phrase) => {
    expect(parseSchedulePhrase(phrase)).toEqual({ error: 'unknown' });
  });
});

describe('every answer is a schedule Herald accepts', () => {
  it.each(UNDERSTOOD)('%p', (_phrase, cron) => {
    expect(scheduleProblems({ cron, timezone: 'Europe/Berlin' })).toEqual([]);
    expect(nextOccurrences({ cron, timezone: 'Europe/Berlin' }, FROM, 3)).toHaveLength(3);
  });
});

describe('the next times are what the phrase says (UTC, from Thursday 1 January 2026)', () => {
  it('every weekday at 8am: Monday to Friday at 08:00', () => {
    const times = next('every weekday at 8am', 10);
    expect(times.map((t) => t.getUTCDay())).toEqual([4, 5, 1, 2, 3, 4, 5, 1, 2, 3]);
    expect(new Set(times.map(hhmm))).toEqual(new Set(['08:00']));
  });

  it('every 15 minutes between 9 and 17 on weekdays: 09:00 to 16:45, 15 minutes apart, weekdays only', () => {
    const days = new Map<string, string[]>();
    for (const t of next('every 15 minutes between 9 and 17 on weekdays', 32 * 3)) {
      const day = iso(t).slice(0, 10);
      days.set(day, [...days.get(day) ?? [], hhmm(t)]);
    }
    expect([...days.keys()]).toEqual(['2026-01-01', '2026-01-02', '2026-01-05']);
    for (const slots of days.values()) {
      expect(slots).toHaveLength(32);
      expect([slots[0], slots[1], slots.at(-1)]).toEqual(['09:00', '09:15', '16:45']);
    }
  });

  it('every hour between 9 and 17: 09:00 to 17:00 included', () => {
    expect(next('every hour between 9 and 17', 10).map(hhmm)).toEqual(
      ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00', '17:00', '09:00']);
  });

  it('every 2 hours from 9 to 5 on weekdays: 09:00, 11:00, 13:00, 15:00, 17:00', () => {
    expect(next('every 2 hours from 9 to 5 on weekdays', 6).map(hhmm)).toEqual(['09:00', '11:00', '13:00', '15:00', '17:00', '09:00']);
  });

  it('every other hour: twelve times a day, two hours apart', () => {
    const times = next('every other hour', 13);
    for (let i = 1; i < times.length; i += 1) expect(times[i]!.getTime() - times[i - 1]!.getTime()).toBe(2 * 3600_000);
    expect(iso(times[12]!)).toBe('2026-01-02T02:00:00.000Z');
  });

  it('every Monday and Thursday at 7:45 pm', () => {
    expect(next('every Monday and Thursday at 7:45 pm', 4).map(iso)).toEqual([
      '2026-01-01T19:45:00.000Z', '2026-01-05T19:45:00.000Z', '2026-01-08T19:45:00.000Z', '2026-01-12T19:45:00.000Z']);
  });

  it('every Sunday night: Sundays at 22:00', () => {
    expect(next('every Sunday night', 2).map(iso)).toEqual(['2026-01-04T22:00:00.000Z', '2026-01-11T22:00:00.000Z']);
  });

  it('on the 1st and 15th at 6am: those two days of every month', () => {
    const times = next('on the 1st and 15th at 6am', 24);
    expect(times.map((t) => t.getUTCDate())).toEqual(Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? 1 : 15)));
    expect(new Set(times.map((t) => t.getUTCMonth())).size).toBe(12);
    expect(new Set(times.map(hhmm))).toEqual(new Set(['06:00']));
  });

  it('every quarter on the first day at 8: 1 January, April, July, October at 08:00', () => {
    expect(next('every quarter on the first day at 8', 5).map(iso)).toEqual([
      '2026-01-01T08:00:00.000Z', '2026-04-01T08:00:00.000Z', '2026-07-01T08:00:00.000Z', '2026-10-01T08:00:00.000Z',
      '2027-01-01T08:00:00.000Z']);
  });

  it('every year on January 1 at 00:00: once a year', () => {
    expect(next('every year on January 1 at 00:00', 2).map(iso)).toEqual(['2027-01-01T00:00:00.000Z', '2028-01-01T00:00:00.000Z']);
  });

  it('on the 28th at 23:00: every month, February included', () => {
    expect(next('on the 28th at 23:00', 12).map((t) => t.getUTCMonth())).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });
});

describe("what Herald's cron dialect cannot say, and so is answered unknown", () => {
  it('refuses L (last day of the month) and # (nth weekday), though croner itself would read them', () => {
    expect(scheduleProblems({ cron: '0 23 L * *', timezone: 'UTC' })).toEqual([expect.objectContaining({ field: 'cron' })]);
    expect(scheduleProblems({ cron: '30 9 * * 1#1', timezone: 'UTC' })).toEqual([expect.objectContaining({ field: 'cron' })]);
    expect(parseSchedulePhrase('last day of the month at 23:00')).toEqual({ error: 'unknown' });
    expect(parseSchedulePhrase('first Monday of the month at 09:30')).toEqual({ error: 'unknown' });
  });

  it('reads a restricted day of the month and day of the week as either: 1-7 with Monday is no "first Monday"', () => {
    const days = nextOccurrences({ cron: '30 9 1-7 * 1', timezone: 'UTC' }, FROM, 10).map((t) => [t.getUTCDate(), t.getUTCDay()] as const);
    expect(days.some(([date, weekday]) => weekday !== 1 && date <= 7)).toBe(true); // a day 1-7 that is no Monday
    expect(days.some(([date, weekday]) => weekday === 1 && date > 7)).toBe(true); // a Monday after the 7th
  });

  it('has no minute step that stays exact across the hour: */7 leaves 4 minutes between :56 and :00', () => {
    expect(nextOccurrences({ cron: '*/7 * * * *', timezone: 'UTC' }, FROM, 10).map(hhmm).slice(7)).toEqual(['00:56', '01:00', '01:07']);
    expect(parseSchedulePhrase('every 7 minutes')).toEqual({ error: 'unknown' });
  });
});
