/**
 * The words of a schedule phrase (schedule-phrases.ts): the phrase lower-cased, its punctuation
 * made regular ("7:45pm" → "7:45 pm", "p.m." → "pm", "mon-fri" → "mon to fri", "&" → "and",
 * commas as tokens of their own, sentence punctuation and "the" dropped, number and ordinal words
 * as digits), split on spaces; a cursor over them; what a single token means (a weekday, a
 * month, a number, an ordinal, a clock time); and the two readers the clauses share, a list and a
 * time of day. Nothing here guesses: an odd token is left as it is and the grammar, finding no
 * clause for it, answers unknown.
 */

/** Thrown anywhere in the grammar when the phrase is not understood exactly: the answer is unknown. */
export class Unknown extends Error {}

export const unknown = (): never => {
  throw new Unknown();
};

const NUMBER_WORDS: Readonly<Record<string, string>> = {
  one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
  ten: '10', eleven: '11', twelve: '12', fifteen: '15', twenty: '20', thirty: '30',
  first: '1st', second: '2nd', third: '3rd', fourth: '4th', fifth: '5th', sixth: '6th',
  seventh: '7th', eighth: '8th', ninth: '9th', tenth: '10th', fifteenth: '15th', twentieth: '20th',
};

/** The tokens of a phrase (see the module comment). */
export function tokenize(phrase: string): string[] {
  const s = phrase.normalize('NFKC').toLowerCase()
    .replace(/[’`]/g, "'")
    .replace(/\b([ap])\.\s?m\b\.?/g, '$1m')
    .replace(/\bo'?clock\b/g, ' ')
    .replace(/\bhalf-hour\b/g, 'half hour')
    .replace(/\s*[-–—]\s*/g, ' to ')
    .replace(/(\d)(am|pm)\b/g, '$1 $2')
    .replace(/&/g, ' and ')
    .replace(/,/g, ' , ')
    .replace(/[.!?;]+(?=\s|$)/g, ' ');
  return s.split(/\s+/)
    .filter((t) => t !== '' && t !== 'the')
    .map((t) => NUMBER_WORDS[t] ?? t);
}

/** A position in the tokens; `attempt` rewinds when a clause does not match. */
export class Cursor {
  pos = 0;

  constructor(readonly tokens: readonly string[]) {}

  peek(ahead = 0): string | undefined {
    return this.tokens[this.pos + ahead];
  }

  done(): boolean {
    return this.pos >= this.tokens.length;
  }

  /** Takes the next token when it is one of `words`. */
  accept(...words: string[]): string | undefined {
    const t = this.peek();
    if (t === undefined || !words.includes(t)) return undefined;
    this.pos += 1;
    return t;
  }

  /** Takes the next token when `read` gives it a meaning. */
  take<T>(read: (token: string) => T | undefined): T | undefined {
    const t = this.peek();
    const value = t === undefined ? undefined : read(t);
    if (value !== undefined) this.pos += 1;
    return value;
  }

  /** Runs `fn`; when it answers undefined (no match), puts the cursor back where it was. */
  attempt<T>(fn: () => T | undefined): T | undefined {
    const start = this.pos;
    const value = fn();
    if (value === undefined) this.pos = start;
    return value;
  }
}

const WEEKDAYS: readonly (readonly string[])[] = [
  ['sunday', 'sun'], ['monday', 'mon'], ['tuesday', 'tue', 'tues'], ['wednesday', 'wed'],
  ['thursday', 'thu', 'thur', 'thurs'], ['friday', 'fri'], ['saturday', 'sat'],
];

/** A weekday name, abbreviation or plural ("mondays") as 0 (Sunday) … 6. */
export function weekdayOf(token: string): number | undefined {
  const i = WEEKDAYS.findIndex((names) => names.includes(token) || token === `${names[0]}s`);
  return i >= 0 ? i : undefined;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** A month name or abbreviation as 1 … 12. */
export function monthOf(token: string): number | undefined {
  const i = token === 'sept' ? 8 : Math.max(MONTHS.indexOf(token), MONTH_NAMES.indexOf(token));
  return i >= 0 ? i + 1 : undefined;
}

/** The days a month always has (February: 28, so that a day-of-month never skips a year). */
export const DAYS_IN_EVERY_YEAR = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A whole number written in digits. */
export function numberOf(token: string): number | undefined {
  return /^\d{1,3}$/.test(token) ? Number(token) : undefined;
}

/** An ordinal, "1st" … "31st" (the suffix is not checked against the number: "22th" is 22). */
export function ordinalOf(token: string): number | undefined {
  const m = /^(\d{1,2})(st|nd|rd|th)$/.exec(token);
  return m ? Number(m[1]) : undefined;
}

/**
 * A clock token: "7:45", "09.30", "14h30", "14h". `strict` when the form itself says it is a
 * 24-hour time ("14h", "09:30" with its leading zero), so that no am/pm nor part of the day
 * ("evening") may reread it.
 */
export function clockOf(token: string): { hour: number; minute: number; strict: boolean } | undefined {
  const m = /^(\d{1,2})(?:([:.h])(\d{2})|h)$/.exec(token);
  if (!m) return undefined;
  return { hour: Number(m[1]), minute: Number(m[3] ?? 0), strict: m[2] === undefined || m[2] === 'h' || m[1]!.length === 2 && m[1]![0] === '0' };
}

/** A minute of the hour written ":15". */
export function minuteMarkOf(token: string): number | undefined {
  const m = /^:(\d{2})$/.exec(token);
  return m ? Number(m[1]) : undefined;
}

/** Items read by `item`, separated by ",", "and" or ", and". */
export function listOf<T>(c: Cursor, item: () => T | undefined): T[] | undefined {
  const first = item();
  if (first === undefined) return undefined;
  const all = [first];
  for (;;) {
    const next = c.attempt(() => (c.accept(',', 'and') ? (c.accept('and'), item()) : undefined));
    if (next === undefined) return all;
    all.push(next);
  }
}

/** A time as written: `meridiem` when am/pm was given; `fixed` when nothing may reread it as pm. */
export interface TimeOfDay {
  hour: number;
  minute: number;
  meridiem: boolean;
  fixed: boolean;
}

/**
 * One time: "8", "8 am", "7:45 pm", "14h", "09:30", "noon", "midnight", "half past 9",
 * "quarter to 9". A bare number only where `bareOk` (after "at", in a list or a window).
 */
export function timeOf(c: Cursor, bareOk: boolean): TimeOfDay | undefined {
  return c.attempt(() => {
    if (c.accept('noon', 'midday')) return { hour: 12, minute: 0, meridiem: false, fixed: true };
    if (c.accept('midnight')) return { hour: 0, minute: 0, meridiem: false, fixed: true };
    const offset = c.attempt(() => {
      if (c.accept('half')) return c.accept('past') ? 30 : undefined;
      if (!c.accept('quarter')) return undefined;
      return c.accept('past') ? 15 : c.accept('to') ? -15 : undefined;
    });
    const written = c.take(clockOf);
    const bare = written === undefined ? c.take(numberOf) : undefined;
    const clock = written ?? (bare === undefined ? undefined : { hour: bare, minute: 0, strict: false });
    if (clock === undefined) return undefined;
    if (offset !== undefined && (clock.minute !== 0 || clock.strict)) return undefined;
    const meridiem = c.accept('am', 'pm');
    if (bare !== undefined && meridiem === undefined && offset === undefined && !bareOk) return undefined;
    let { hour } = clock;
    if (meridiem !== undefined) {
      if (clock.strict || hour < 1 || hour > 12) unknown();
      hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
    }
    let minute = clock.minute;
    if (offset !== undefined) {
      if (offset < 0) hour -= 1;
      minute = (offset + 60) % 60;
      if (hour < 0) unknown();
    }
    if (hour > 23 || minute > 59) unknown();
    const fixed = meridiem !== undefined || clock.strict || clock.hour === 0 || clock.hour >= 13;
    return { hour, minute, meridiem: meridiem !== undefined, fixed };
  });
}
