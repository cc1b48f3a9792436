/**
 * Schedules: a five-field cron read as wall-clock times in an IANA time zone.
 *
 * The calendar arithmetic is croner's, run in UTC on the wall-clock times, where no clock ever
 * changes; this module maps each wall-clock time to its instant with Herald's rule (zone-time.ts;
 * openapi.yaml states it for schedule previews): a time the clocks skip runs once, at the first
 * valid minute after the gap; a time that occurs twice runs once, at its first occurrence.
 * croner's own time zone mode is not used: for jobs with a wildcard, range or list in the minute
 * or hour field it runs both passes of a repeated hour and skips times in a gap (Vixie cron's
 * rule), which breaks that rule. Descriptions are cronstrue's.
 *
 * A cron that matches no date at all (`0 0 30 2 *`) is refused by `validateSchedule`, so
 * `nextOccurrences` never searches in vain; rare ones (`0 0 29 2 *`) are cheap, since croner
 * jumps field by field rather than minute by minute.
 */
import { Cron } from 'croner';
import cronstrue from 'cronstrue';
import { validationFailed, type FieldProblem } from '../../core/errors.js';
import { parseCron, type ParsedCron } from './cron-expression.js';
import { instantOfWallClock, timeZoneProblem, wallClockOf } from './zone-time.js';

export interface Schedule {
  /** Five-field cron (or a nickname such as @daily), see cron-expression.ts. */
  cron: string;
  /** IANA time zone name, e.g. Europe/Berlin. */
  timezone: string;
}

/**
 * Wall-clock matches skipped while looking for one occurrence: those of a gap after its first
 * (they share its instant) and those of a repeated hour's second pass when `from` lies in it.
 * Two days of minutes covers even a zone that skipped a whole day (Pacific/Apia, 2011).
 */
const MAX_SKIPPED_MATCHES = 2 * 24 * 60;

/** Where the calendar arithmetic starts when checking that a cron matches any date at all. */
const PROBE_FROM = new Date(Date.UTC(2000, 0, 1));

interface CompiledSchedule {
  cron: ParsedCron;
  timezone: string;
  matcher: Cron;
}

/** A cron matcher over wall-clock time: UTC arithmetic, where no clock changes. */
function matcherFor(cron: ParsedCron): Cron {
  return new Cron(cron.numeric, { utcOffset: 0, mode: '5-part' });
}

/** Checks a schedule; the problems name `<path>.cron` and `<path>.timezone` (or `cron`, `timezone`). */
export function scheduleProblems(schedule: Schedule, path = ''): FieldProblem[] {
  const at = (name: string) => (path === '' ? name : `${path}.${name}`);
  const problems: FieldProblem[] = [];
  const parsed = parseCron(schedule.cron);
  if (!parsed.ok) {
    problems.push({ field: at('cron'), code: 'validation.invalid', message: parsed.message });
  } else if (matcherFor(parsed.cron).nextRun(PROBE_FROM) === null) {
    problems.push({
      field: at('cron'), code: 'validation.invalid',
      message: 'never runs: no date matches its day-of-month, month and day-of-week fields (e.g. 30 February)',
    });
  }
  const zoneProblem = timeZoneProblem(schedule.timezone);
  if (zoneProblem !== undefined) problems.push({ field: at('timezone'), code: 'validation.invalid', message: zoneProblem });
  return problems;
}

/** Throws validation.failed (422) naming each bad field when the schedule is not valid. */
export function validateSchedule(schedule: Schedule, path = ''): void {
  const problems = scheduleProblems(schedule, path);
  if (problems.length > 0) throw validationFailed(problems, 'The schedule is not valid');
}

/** Compiled schedules by cron and zone: a tick computes the same few schedules thousands of times. */
const compiled = new Map<string, CompiledSchedule>();
const COMPILED_MAX = 1000;

function compile(schedule: Schedule): CompiledSchedule {
  const key = `${schedule.cron}\u0000${schedule.timezone}`;
  const held = compiled.get(key);
  if (held) return held;
  validateSchedule(schedule);
  const parsed = parseCron(schedule.cron);
  if (!parsed.ok) throw new Error('unreachable: validated above');
  const made = { cron: parsed.cron, timezone: schedule.timezone, matcher: matcherFor(parsed.cron) };
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, made);
  return made;
}

/**
 * The next `count` instants of a schedule strictly after `from`, ascending and distinct. Fewer
 * when the schedule has no more before the year 3000 (croner's horizon). Throws validation.failed
 * for an invalid schedule.
 */
export function nextOccurrences(schedule: Schedule, from: Date, count: number): Date[] {
  const { matcher, timezone } = compile(schedule);
  const out: Date[] = [];
  let last = from.getTime();
  let wall = wallClockOf(last, timezone);
  let skipped = 0;
  while (out.length < count && skipped <= MAX_SKIPPED_MATCHES) {
    const match = matcher.nextRun(new Date(wall));
    if (match === null) break;
    wall = match.getTime();
    const at = instantOfWallClock(wall, timezone);
    if (at <= last) {
      skipped += 1;
      continue;
    }
    out.push(new Date(at));
    last = at;
    skipped = 0;
  }
  return out;
}

/** The next instant strictly after `from`, or null when there is none before the year 3000. */
export function nextOccurrence(schedule: Schedule, from: Date): Date | null {
  return nextOccurrences(schedule, from, 1)[0] ?? null;
}

/**
 * Descriptions by cron expression, least recently used first out: cronstrue takes ~0.1 ms per
 * description, and a list of 50 reports describes the same few schedules on every request.
 */
const descriptions = new Map<string, string>();
const DESCRIPTIONS_MAX = 1000;

/** The schedule's cron in English, e.g. "At 08:00, Monday through Friday". */
export function describeSchedule(schedule: Schedule): string {
  const { cron } = compile(schedule);
  const held = descriptions.get(cron.expression);
  if (held !== undefined) {
    descriptions.delete(cron.expression);
    descriptions.set(cron.expression, held);
    return held;
  }
  const text = cronstrue.toString(cron.expression, {
    use24HourTimeFormat: true, verbose: false, throwExceptionOnParseError: true, dayOfWeekStartIndexZero: true,
  });
  if (descriptions.size >= DESCRIPTIONS_MAX) descriptions.delete(descriptions.keys().next().value!);
  descriptions.set(cron.expression, text);
  return text;
}

/** How far back the search for the latest missed time first looks (then it walks from `due`). */
const RECENT_WINDOW_MS = 2 * 3600_000;

/**
 * The slot a due report runs for: the latest occurrence at or before `now`, given that `due` (its
 * next_run_at, itself an occurrence) is at or before `now`. After downtime a report runs once, for
 * its latest missed time, not once per missed time. Cheap for frequent schedules (it looks at the
 * last two hours first) and for rare ones (few occurrences lie between `due` and `now`).
 */
export function latestDueSlot(schedule: Schedule, due: Date, now: Date): Date {
  const latestFrom = (start: number): Date | undefined => {
    let slot: Date | undefined;
    let t = nextOccurrence(schedule, new Date(start));
    while (t && t.getTime() <= now.getTime()) {
      slot = t;
      t = nextOccurrence(schedule, t);
    }
    return slot;
  };
  if (due.getTime() > now.getTime()) return due;
  const recent = latestFrom(Math.max(due.getTime() - 1, now.getTime() - RECENT_WINDOW_MS));
  if (recent) return recent;
  return latestFrom(due.getTime() - 1) ?? due;
}
