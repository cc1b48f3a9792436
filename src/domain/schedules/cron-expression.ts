/**
 * The cron dialect Herald accepts: standard five-field cron as Vixie cron reads it (minute hour
 * day-of-month month day-of-week; numbers, month and weekday names, `*`, ranges, steps, lists),
 * plus the nicknames @hourly … @annually. Anything else (seconds or year fields, Quartz's L, W,
 * # and ?, croner's + modifier, @reboot) is refused with a message that says what is wrong.
 *
 * The parse ends in a purely numeric five-field pattern that the matching library gets, so the
 * library's own extensions can never be reached through a schedule.
 */

export interface CronField {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly CronField[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] },
  { name: 'day-of-week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

const NICKNAMES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const SYNTAX_HINT = 'use numbers, names (JAN-DEC, SUN-SAT), *, ranges a-b, steps */n or a-b/n, and lists a,b';

export interface ParsedCron {
  /** The five fields as written (a nickname expanded), single-spaced: what the description reads. */
  expression: string;
  /**
   * The same five fields with names replaced by numbers: what the matching library gets. When
   * both day fields are restricted (neither is exactly `*`), a day matching either runs, as
   * croner, cron-parser and cronstrue read it. (Vixie cron reads a day field that merely starts
   * with `*`, such as `*\/2`, as unrestricted; Herald does not, so that the description and the
   * times agree.)
   */
  numeric: string;
}

export type CronParse = { ok: true; cron: ParsedCron } | { ok: false; message: string };

class CronSyntaxError extends Error {}

/** Reads a cron expression; never throws. */
export function parseCron(input: string): CronParse {
  try {
    return { ok: true, cron: parse(input) };
  } catch (err) {
    if (err instanceof CronSyntaxError) return { ok: false, message: err.message };
    throw err;
  }
}

function parse(input: string): ParsedCron {
  const trimmed = input.trim();
  if (trimmed === '') throw new CronSyntaxError('is empty: give five fields, e.g. "0 8 * * 1-5"');
  let expression = trimmed;
  if (trimmed.startsWith('@')) {
    const expanded = NICKNAMES[trimmed.toLowerCase()];
    if (expanded === undefined) {
      throw new CronSyntaxError(`${trimmed} is not supported: use five fields or one of ${Object.keys(NICKNAMES).join(', ')}`);
    }
    expression = expanded;
  }
  const parts = expression.split(/\s+/);
  if (parts.length !== 5) {
    const more = parts.length > 5 ? ' (seconds and year fields are not supported)' : '';
    throw new CronSyntaxError(`must have five fields (minute hour day-of-month month day-of-week), not ${parts.length}${more}`);
  }
  const numeric = parts.map((part, i) => field(part, FIELDS[i]!));
  return { expression: parts.join(' '), numeric: numeric.join(' ') };
}

/** One field, checked, with names replaced by numbers. */
function field(part: string, f: CronField): string {
  return part.split(',').map((item) => {
    if (item === '') throw new CronSyntaxError(`${f.name} field "${part}" has an empty list item`);
    return listItem(item, f);
  }).join(',');
}

function listItem(item: string, f: CronField): string {
  const slash = item.split('/');
  if (slash.length > 2) throw new CronSyntaxError(`${f.name} field: "${item}" is not valid; ${SYNTAX_HINT}`);
  const [range, step] = slash as [string, string | undefined];
  let out: string;
  if (range === '*') {
    out = '*';
  } else {
    const bounds = range.split('-');
    if (bounds.length > 2) throw new CronSyntaxError(`${f.name} field: "${item}" is not valid; ${SYNTAX_HINT}`);
    if (bounds.length === 1 && step !== undefined) {
      throw new CronSyntaxError(`${f.name} field: "${item}" is not valid; a step needs * or a range (*/${step} or ${range}-${f.max}/${step})`);
    }
    const from = value(bounds[0]!, f, item, false);
    if (bounds.length === 1) {
      out = String(from);
    } else {
      const to = value(bounds[1]!, f, item, true);
      if (from > to) throw new CronSyntaxError(`${f.name} field: range "${item}" goes backwards; write it from the lower to the higher value`);
      out = `${from}-${to}`;
    }
  }
  if (step !== undefined) {
    const span = f.max - f.min;
    if (!/^\d+$/.test(step) || Number(step) < 1 || Number(step) > span) {
      throw new CronSyntaxError(`${f.name} field: step "${step}" in "${item}" must be a whole number from 1 to ${span}`);
    }
    out += `/${Number(step)}`;
  }
  return out;
}

/** A number or a name in range; Sunday at the end of a weekday range is 7 (FRI-SUN is 5-7). */
function value(token: string, f: CronField, item: string, rangeEnd: boolean): number {
  if (/^\d+$/.test(token)) {
    const n = Number(token);
    if (n < f.min || n > f.max) throw new CronSyntaxError(`${f.name} field: ${n} is out of range ${f.min}-${f.max}`);
    return n;
  }
  const index = f.names?.indexOf(token.toUpperCase()) ?? -1;
  if (index >= 0) {
    const n = f.name === 'month' ? index + 1 : index;
    return f.name === 'day-of-week' && n === 0 && rangeEnd ? 7 : n;
  }
  if (/[LW#?+]/i.test(token)) {
    throw new CronSyntaxError(`${f.name} field: "${item}" uses a non-standard extension (L, W, #, ? or +); ${SYNTAX_HINT}`);
  }
  throw new CronSyntaxError(`${f.name} field: "${item}" is not valid; ${SYNTAX_HINT}`);
}
