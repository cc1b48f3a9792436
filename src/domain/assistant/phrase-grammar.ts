/**
 * The grammar of a schedule phrase: a sequence of clauses in any order, each filling one slot of a
 * PhraseSpec ("every 15 minutes" the interval, "on weekdays" the weekdays, "at 8 and 17" the
 * times, "between 9 and 17" the window, …), separated by spaces or commas ("and" only inside a
 * list: "… between 9 and 17 and on weekends" may mean either, so it is not understood). A slot
 * filled twice, a token no clause reads, or a clause that reads a form cron cannot hold ("first
 * Monday", "every other day") throws Unknown. Which crons the filled slots make is schedule-phrases.ts's.
 */
import {
  Cursor, listOf, minuteMarkOf, monthOf, numberOf, ordinalOf, timeOf, tokenize, unknown, weekdayOf, type TimeOfDay,
} from './phrase-tokens.js';

export type { TimeOfDay };

export type PartOfDay = 'morning' | 'afternoon' | 'evening' | 'night';

export interface PhraseSpec {
  every?: { unit: 'minute' | 'hour'; n: number };
  times?: TimeOfDay[];
  minuteOfHour?: number;
  partOfDay?: PartOfDay;
  daily?: true;
  perDay?: number;
  weekdays?: number[];
  monthDays?: number[];
  months?: number[];
  period?: 'week' | 'month' | 'year';
  window?: { from: TimeOfDay; to: TimeOfDay };
}

/** Fills a slot; a slot given twice ("every day … daily", two day clauses) is not understood. */
function set<K extends keyof PhraseSpec>(spec: PhraseSpec, key: K, value: PhraseSpec[K]): true {
  if (spec[key] !== undefined) unknown();
  spec[key] = value;
  return true;
}

const sorted = (values: number[]): number[] => [...new Set(values)].sort((a, b) => a - b);

const range = (from: number, to: number, step = 1): number[] =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

const unitOf = (t: string): 'minute' | 'hour' | undefined =>
  ['minute', 'minutes', 'min', 'mins'].includes(t) ? 'minute' : ['hour', 'hours', 'hr', 'hrs', 'h'].includes(t) ? 'hour' : undefined;

const partOf = (t: string): PartOfDay | undefined =>
  (['morning', 'afternoon', 'evening', 'night'] as const).find((p) => t === p || t === `${p}s`);

/** "every 15 minutes", "every other hour", "every 2nd hour", "every half hour", "every minute", "hourly", "every 2h". */
function interval(c: Cursor, spec: PhraseSpec): boolean {
  if (c.accept('hourly')) return set(spec, 'every', { unit: 'hour', n: 1 });
  const every = c.attempt(() => {
    if (!c.accept('every', 'each')) return undefined;
    const fraction = c.accept('half') ? 30 : c.accept('quarter') ? 15 : undefined;
    if (fraction !== undefined) {
      if (fraction === 15) c.accept('of');
      c.accept('an');
      return c.accept('hour') ? { unit: 'minute' as const, n: fraction } : undefined;
    }
    const packed = c.take((t) => /^(\d+)(h|hrs?|m|mins?)$/.exec(t) ?? undefined);
    if (packed) return { unit: packed[2]!.startsWith('h') ? 'hour' as const : 'minute' as const, n: Number(packed[1]) };
    const n = c.accept('other') ? 2 : c.take(numberOf) ?? c.take(ordinalOf) ?? 1;
    const unit = c.take(unitOf);
    return unit === undefined || n < 1 ? undefined : { unit, n };
  });
  return every !== undefined && set(spec, 'every', every);
}

/** "once a day", "twice daily", "3 times per day". */
function perDay(c: Cursor, spec: PhraseSpec): boolean {
  const n = c.attempt(() => {
    const count = c.accept('once') ? 1 : c.accept('twice') ? 2 : c.accept('thrice') ? 3 : c.attempt(() => {
      const k = c.take(numberOf);
      return k !== undefined && c.accept('times') ? k : undefined;
    });
    if (count === undefined) return undefined;
    if (c.accept('daily')) return count;
    return c.accept('a', 'per', 'each', 'every') && c.accept('day') ? count : undefined;
  });
  return n !== undefined && set(spec, 'perDay', n) && set(spec, 'daily', true);
}

/** "daily", "every day", "everyday", "each day"; "every evening" (daily, in the evening). */
function daily(c: Cursor, spec: PhraseSpec): boolean {
  if (c.accept('daily', 'everyday')) return set(spec, 'daily', true);
  const part = c.attempt(() => {
    if (!c.accept('every', 'each')) return undefined;
    return c.accept('day') ? 'day' : c.take(partOf);
  });
  if (part === undefined) return false;
  set(spec, 'daily', true);
  return part === 'day' || set(spec, 'partOfDay', part);
}

/** One item of a weekday list: a day, a range of days ("mon to fri"), weekdays, weekends. */
function weekdayItem(c: Cursor): number[] | undefined {
  if (c.accept('weekday', 'weekdays', 'workday', 'workdays')) return range(1, 5);
  if (c.attempt(() => (c.accept('work', 'business') && c.accept('day', 'days')) || undefined)) return range(1, 5);
  if (c.accept('weekend', 'weekends')) return [0, 6];
  const first = c.take(weekdayOf);
  if (first === undefined) return undefined;
  const last = c.attempt(() => (c.accept('to', 'through', 'thru', 'till', 'until') ? c.take(weekdayOf) : undefined));
  if (last === undefined) return [first];
  return last >= first ? range(first, last) : [...range(first, 6), ...range(0, last)];
}

/** "every Monday and Thursday", "on weekdays", "mondays", "from mon to fri", "at weekends", "every weekday morning". */
function weekdays(c: Cursor, spec: PhraseSpec): boolean {
  const days = c.attempt(() => {
    if (c.accept('on', 'at')) c.accept('every', 'each');
    else c.accept('every', 'each', 'from');
    return listOf(c, () => weekdayItem(c))?.flat();
  });
  if (days === undefined) return false;
  set(spec, 'weekdays', sorted(days));
  const part = c.take(partOf);
  return part === undefined || set(spec, 'partOfDay', part);
}

/** "in the morning", "at night". */
function partOfDay(c: Cursor, spec: PhraseSpec): boolean {
  const part = c.attempt(() => (c.accept('in', 'at') ? c.take(partOf) : undefined));
  return part !== undefined && set(spec, 'partOfDay', part);
}

/** "at 8 and 17", "at 9am, noon and 5pm", "16:30" (a time that is no bare number needs no "at"). */
function times(c: Cursor, spec: PhraseSpec): boolean {
  const list = c.attempt(() => {
    const at = c.accept('at') !== undefined;
    const first = timeOf(c, at);
    if (first === undefined) return undefined;
    const rest = c.attempt(() => (c.accept(',', 'and') ? (c.accept('and'), c.accept('at'), listOf(c, () => timeOf(c, true))) : undefined));
    return [first, ...rest ?? []];
  });
  return list !== undefined && set(spec, 'times', list);
}

/** "at :15", "at minute 15", "at 15 minutes past hour", "on hour" ("the" is dropped). */
function minuteOfHour(c: Cursor, spec: PhraseSpec): boolean {
  const minute = c.attempt(() => {
    if (c.accept('on')) return c.accept('hour') ? 0 : undefined;
    const at = c.accept('at');
    const mark = c.take(minuteMarkOf);
    if (mark !== undefined) return mark;
    if (!at) return undefined;
    if (c.accept('minute')) return c.take(numberOf);
    const n = c.take(numberOf);
    return n !== undefined && c.accept('minutes', 'minute', 'min', 'mins') && c.accept('past')
      && (c.accept('each', 'every'), c.accept('hour')) ? n : undefined;
  });
  if (minute === undefined) return false;
  if (minute > 59) unknown();
  return set(spec, 'minuteOfHour', minute);
}

/** "between 9 and 17", "from 8am to 6pm", "from 9 until 5". */
function window(c: Cursor, spec: PhraseSpec): boolean {
  const w = c.attempt(() => {
    const between = c.accept('between');
    if (!between && !c.accept('from')) return undefined;
    const from = timeOf(c, true);
    if (from === undefined) return undefined;
    if (!(between ? c.accept('and', 'to') : c.accept('to', 'till', 'until', 'through', 'thru'))) return undefined;
    const to = timeOf(c, true);
    return to === undefined ? undefined : { from, to };
  });
  return w !== undefined && set(spec, 'window', w);
}

/** A day of the month: "15th", "first" (→ 1st); a plain number after "on" or "day", or before a month. */
const dayNumber = (c: Cursor, plain: boolean): number | undefined =>
  c.take(ordinalOf) ?? (plain || monthOf(c.peek(1) ?? '') !== undefined ? c.take(numberOf) : undefined);

/** A day of the month in a list; one before a weekday ("first Monday", "2nd tuesday") is not cron. */
function listedDay(c: Cursor, plain: boolean): number | undefined {
  const day = dayNumber(c, plain);
  if (day === undefined) return undefined;
  const next = c.peek() ?? '';
  if (weekdayOf(next) !== undefined || ['weekday', 'weekdays', 'week', 'weekend'].includes(next)) unknown();
  c.accept('day', 'days');
  return day;
}

/**
 * Days of the month: "on 1st and 15th", "first day", "on day 3", "on 15th of each month" (the
 * "of each month" is `period`'s), "1st of january", "on 1 january", "january 1", "jan 1st and
 * jul 1st" ("the" is dropped). Dates in several months must be every month with every day.
 */
function monthDays(c: Cursor, spec: PhraseSpec): boolean {
  const found = c.attempt(() => {
    const on = c.accept('on') !== undefined;
    const plain = c.accept('day') !== undefined || on;
    const dates = listOf(c, () => c.attempt(() => {
      const month = c.take(monthOf);
      const day = month === undefined ? undefined : listedDay(c, true);
      return day === undefined ? undefined : { month: month!, day };
    }));
    if (dates !== undefined) {
      const days = new Set(dates.map((d) => d.day));
      const months = new Set(dates.map((d) => d.month));
      if (days.size * months.size !== new Set(dates.map((d) => `${d.month}/${d.day}`)).size) unknown();
      return { days: [...days], months: [...months] };
    }
    const days = listOf(c, () => listedDay(c, plain));
    if (days === undefined) return undefined;
    return { days, months: c.attempt(() => (c.accept('of'), listOf(c, () => c.take(monthOf)))) };
  });
  if (found === undefined) return false;
  set(spec, 'monthDays', sorted(found.days));
  return found.months === undefined || set(spec, 'months', sorted(found.months));
}

/** "in january", "in jan and jul". */
function months(c: Cursor, spec: PhraseSpec): boolean {
  const list = c.attempt(() => (c.accept('in') ? listOf(c, () => c.take(monthOf)) : undefined));
  return list !== undefined && set(spec, 'months', sorted(list));
}

/** "every month", "of each month", "monthly", "every quarter", "every 3 months", "every year", "weekly". */
function period(c: Cursor, spec: PhraseSpec): boolean {
  if (c.accept('monthly')) return set(spec, 'period', 'month');
  if (c.accept('quarterly')) return set(spec, 'period', 'month') && set(spec, 'months', [1, 4, 7, 10]);
  if (c.accept('yearly', 'annually')) return set(spec, 'period', 'year');
  if (c.accept('weekly')) return set(spec, 'period', 'week');
  const found = c.attempt(() => {
    const of = c.accept('of') !== undefined;
    const every = c.accept('every', 'each') !== undefined;
    if (!of && !every) return undefined;
    if (c.accept('month')) return { period: 'month' as const };
    if (!every) return undefined;
    if (c.accept('week')) return { period: 'week' as const };
    if (c.accept('year')) return { period: 'year' as const };
    if (c.accept('quarter')) return { period: 'month' as const, months: [1, 4, 7, 10] };
    const n = c.take(numberOf);
    if (n === undefined || !c.accept('months') || n < 1 || 12 % n !== 0) return undefined;
    return { period: 'month' as const, months: range(1, 12, n) };
  });
  if (found === undefined) return false;
  set(spec, 'period', found.period);
  return found.months === undefined || set(spec, 'months', found.months);
}

const CLAUSES = [interval, perDay, daily, weekdays, partOfDay, window, minuteOfHour, monthDays, times, months, period];

/** The slots a phrase fills; throws Unknown when some part of it is not understood. */
export function readPhrase(phrase: string): PhraseSpec {
  const c = new Cursor(tokenize(phrase));
  const spec: PhraseSpec = {};
  while (!c.done()) {
    // Clauses join by commas only: "between 9 and 17 and on weekends" may mean either.
    if (c.accept(',')) continue;
    if (!CLAUSES.some((clause) => clause(c, spec))) unknown();
  }
  return spec;
}
