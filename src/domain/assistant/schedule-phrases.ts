/**
 * English schedule phrases to cron, without a provider: "every weekday at 8am" → `0 8 * * 1-5`.
 * The assistant asks its provider only for phrases this answers unknown, so it must never answer
 * a wrong cron: a phrase is read whole (a word no clause reads makes it unknown) and only what
 * cron holds exactly is answered. The answer is the cron alone; its English description and next
 * times are the schedules feature's (POST /schedules/preview).
 *
 * Design: phrase-tokens.ts makes the tokens, phrase-grammar.ts reads clauses in any order into
 * the slots of a PhraseSpec (interval, times, part of the day, days of the week or of the month,
 * months, period, window), and `cronOf` below turns the slots into the five fields. The answer is
 * checked by the schedules feature's own validation, so it is always a cron Herald accepts.
 *
 * The dialect is Herald's (src/domain/schedules/cron-expression.ts): five fields, numbers, `*`,
 * ranges, steps and lists only; no `L`, `W`, `#` or `?` (croner knows them, Herald refuses them
 * before croner sees the cron), and when both day fields are restricted a day matching EITHER
 * runs. So "first Monday of the month", "last day of the month", "every second Tuesday" have no
 * exact cron (`0 9 1-7 * 1` runs on every Monday and on days 1-7): they answer unknown.
 *
 * Conventions (each one a reading cron can hold exactly; anything else is unknown):
 * - A bare hour is on the 24-hour clock ("weekends at 10" → 10:00, "at 5" → 05:00); am/pm,
 *   "14h", "09:30" (leading zero), noon and midnight are as written.
 * - Parts of the day: morning 08:00, afternoon 14:00, evening 18:00, night 22:00 when no time is
 *   given; with a time, morning reads 1-11 as am, afternoon / evening / night read 1-12 as pm,
 *   and the time must lie in the part (morning 01-11, afternoon 12-17, evening 17-23, night 19-23).
 * - No time of day: midnight ("every Monday" → `0 0 * * 1`, "monthly" → `0 0 1 * *`, "every year"
 *   → 1 January, "every quarter" → the 1st of January, April, July, October). "Weekly" without a
 *   day is unknown (which day starts the week is the reader's). "Every N months" counts from
 *   January (N divides 12: "every 2 months" → January, March, …).
 * - Intervals are exact only when they divide the hour or the day: minutes 1, 2, 3, 4, 5, 6, 10,
 *   12, 15, 20, 30 (and whole hours); hours 1, 2, 3, 4, 6, 8, 12, counted from 00:00.
 * - A window "between 9 and 17" / "from 8am to 6pm" runs from 09:00 up to 17:00: an hour step
 *   includes 17:00 (`0 9-17`), a minute step stops one step before (`*\/15 9-16`), since adding
 *   17:00 alone would bring 17:15 … 17:45 too. "9 to 5" reads 5 as 17:00.
 * - Days of the month: up to 28 (29-31 skip months), or up to the shortest of the named months.
 */
import { scheduleProblems } from '../schedules/schedule.js';
import { readPhrase, type PartOfDay, type PhraseSpec, type TimeOfDay } from './phrase-grammar.js';
import { DAYS_IN_EVERY_YEAR, Unknown, unknown } from './phrase-tokens.js';

export type SchedulePhraseAnswer = { cron: string } | { error: 'unknown' };

/** The five-field cron of an English phrase, or unknown when it has no exact one. */
export function parseSchedulePhrase(phrase: string): SchedulePhraseAnswer {
  try {
    const cron = cronOf(readPhrase(phrase));
    return scheduleProblems({ cron, timezone: 'UTC' }).length === 0 ? { cron } : { error: 'unknown' };
  } catch (err) {
    if (err instanceof Unknown) return { error: 'unknown' };
    throw err;
  }
}

const PARTS: Readonly<Record<PartOfDay, { at: number; from: number; to: number }>> = {
  morning: { at: 8, from: 1, to: 11 },
  afternoon: { at: 14, from: 12, to: 17 },
  evening: { at: 18, from: 17, to: 23 },
  night: { at: 22, from: 19, to: 23 },
};

const MINUTE_STEPS = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30];
const HOUR_STEPS = [1, 2, 3, 4, 6, 8, 12];

/** A cron list: ascending, runs of three or more as ranges ("1-5", "0,6", "1,4,7,10"). */
function list(values: readonly number[]): string {
  const v = [...new Set(values)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < v.length;) {
    let j = i;
    while (j + 1 < v.length && v[j + 1] === v[j]! + 1) j += 1;
    if (j - i >= 2) out.push(`${v[i]}-${v[j]}`);
    else out.push(...v.slice(i, j + 1).map(String));
    i = j + 1;
  }
  return out.join(',');
}

function cronOf(spec: PhraseSpec): string {
  const [dayOfMonth, month, dayOfWeek] = dayFields(spec);
  const [minute, hour] = spec.every ? intervalFields(spec) : timeFields(spec);
  return `${minute} ${hour} ${dayOfMonth} ${month} ${dayOfWeek}`;
}

/** Day of month, month, day of week. Both day fields restricted would be "either": never made. */
function dayFields(spec: PhraseSpec): [string, string, string] {
  const { weekdays, period, months } = spec;
  let { monthDays } = spec;
  const daySelectors = [spec.daily, weekdays, monthDays].filter((x) => x !== undefined).length;
  if (daySelectors > 1) unknown();
  if (daySelectors === 0 && period === undefined && spec.every === undefined) unknown(); // "at 9", "in january at 9"
  if (period === 'week' && weekdays === undefined) unknown();
  if ((period === 'month' || period === 'year') && (weekdays !== undefined || spec.daily)) unknown();
  if (period === 'month' && monthDays === undefined) monthDays = [1];
  if (period === 'year') {
    if ((months === undefined) !== (monthDays === undefined)) unknown(); // "every year in march", "every year on the 3rd"
    if (months === undefined) return ['1', '1', '*'];
  }
  if (monthDays !== undefined) {
    const longest = Math.min(...(months ?? [2]).map((m) => DAYS_IN_EVERY_YEAR[m - 1]!));
    if (monthDays.some((d) => d < 1 || d > longest)) unknown();
  }
  const everyMonth = months === undefined || months.length === 12;
  return [monthDays ? list(monthDays) : '*', everyMonth ? '*' : list(months), weekdays && weekdays.length < 7 ? list(weekdays) : '*'];
}

/** Minute and hour of "every N minutes / hours", within a window if given. */
function intervalFields(spec: PhraseSpec): [string, string] {
  if (spec.times || spec.partOfDay || spec.perDay) unknown();
  let { unit, n } = spec.every!;
  if (unit === 'minute' && n % 60 === 0) [unit, n] = ['hour', n / 60];
  const window = spec.window ? windowHours(spec.window) : undefined;
  if (unit === 'minute') {
    if (!MINUTE_STEPS.includes(n) || spec.minuteOfHour !== undefined) unknown();
    const hours = window ? hourRange(window.from, window.to - 1, 1) : '*';
    return [n === 1 ? '*' : `*/${n}`, hours];
  }
  if (window === undefined && !HOUR_STEPS.includes(n)) unknown();
  if (n >= 24) unknown();
  const minute = spec.minuteOfHour ?? 0;
  if (window === undefined) return [String(minute), n === 1 ? '*' : `*/${n}`];
  // The last run lies at or before the window's end: B:00 itself only at minute 0.
  return [String(minute), hourRange(window.from, minute === 0 ? window.to : window.to - 1, n)];
}

function hourRange(from: number, to: number, step: number): string {
  if (to < from) unknown();
  if (to === from || to - from < step) return String(from);
  return step === 1 ? `${from}-${to}` : `${from}-${to}/${step}`;
}

/** A window's whole hours, "9 to 5" read as 09:00 to 17:00; it must not cross midnight. */
function windowHours(window: { from: TimeOfDay; to: TimeOfDay }): { from: number; to: number } {
  const { from, to } = window;
  if (from.minute !== 0 || to.minute !== 0) unknown();
  let end = to.hour;
  if (!to.fixed && end <= from.hour && end + 12 > from.hour) end += 12;
  if (end <= from.hour || end > 23) unknown();
  return { from: from.hour, to: end };
}

/** Minute and hour of the times of day: they must be every listed minute at every listed hour. */
function timeFields(spec: PhraseSpec): [string, string] {
  if (spec.window || spec.minuteOfHour !== undefined) unknown();
  const part = spec.partOfDay ? PARTS[spec.partOfDay] : undefined;
  const written = spec.times ?? [{ hour: part?.at ?? 0, minute: 0, meridiem: false, fixed: true }];
  // "at 8 and 10pm": is 8 am or pm? Unknown.
  if (written.some((t) => t.meridiem) && written.some((t) => !t.fixed)) unknown();
  const times = written.map((t) => {
    if (part === undefined) return t;
    let hour = t.hour;
    if (!t.fixed && spec.partOfDay !== 'morning' && !(spec.partOfDay === 'afternoon' && hour === 12)) hour += 12;
    if (hour < part.from || hour > part.to) unknown();
    return { ...t, hour };
  });
  const minutes = new Set(times.map((t) => t.minute));
  const hours = new Set(times.map((t) => t.hour));
  const distinct = new Set(times.map((t) => t.hour * 60 + t.minute)).size;
  if (minutes.size * hours.size !== distinct) unknown(); // "at 8:15 and 17:30"
  if (spec.perDay !== undefined && spec.perDay !== distinct) unknown(); // "twice a day at 8"
  return [list([...minutes]), list([...hours])];
}
