/**
 * Wall-clock time in an IANA time zone, with the platform's time zone database (Intl).
 *
 * A wall-clock time is carried as "naive" milliseconds: the instant it would be if the zone were
 * UTC. `wallClockOf` maps an instant to its wall-clock time; `instantOfWallClock` maps back with
 * Herald's rule for DST changes: a wall-clock time that occurs twice (the clocks go back) is its
 * first occurrence, and one that does not exist (the clocks go forward) is the first instant
 * after the gap.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Offsets lie between -12 h and +14 h, so the instants showing one wall-clock time lie within this of it. */
const OFFSET_REACH = 15 * HOUR;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/**
 * Why a zone name is refused, or undefined for a name of the IANA time zone database the
 * platform knows ("Europe/Berlin", "UTC", "America/Argentina/Buenos_Aires", links such as
 * "Asia/Calcutta"). Offsets ("+01:00"), abbreviations the database does not list and names in
 * another case ("europe/berlin") are refused.
 */
export function timeZoneProblem(zone: string): string | undefined {
  const refusal = `"${zone}" is not an IANA time zone name (e.g. Europe/Berlin, America/New_York, UTC)`;
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(zone)) return refusal;
  let canonical: string;
  try {
    canonical = formatterFor(zone).resolvedOptions().timeZone;
  } catch {
    return refusal;
  }
  // The platform accepts any case; a stored schedule should carry the database's spelling.
  if (canonical !== zone && canonical.toLowerCase() === zone.toLowerCase()) return `"${zone}" must be spelled ${canonical}`;
  return undefined;
}

/** The wall-clock time (naive ms) of an instant in a zone. */
export function wallClockOf(instant: number, zone: string): number {
  const whole = Math.floor(instant / 1000) * 1000;
  const p: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(new Date(whole))) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  const naive = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!, p.second!);
  return naive + (instant - whole);
}

/** The zone's offset from UTC at an instant, in ms. */
export function offsetAt(instant: number, zone: string): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallClockOf(whole, zone) - whole;
}

/**
 * The instant of a wall-clock time (naive ms) in a zone: the only one, the first of two in a
 * repeated hour, or the first instant after the gap (rounded up to a whole minute) for a time
 * the clocks skip.
 */
export function instantOfWallClock(naive: number, zone: string): number {
  const before = offsetAt(naive - OFFSET_REACH, zone);
  const after = offsetAt(naive + OFFSET_REACH, zone);
  const candidates = [...new Set([naive - before, naive - after])]
    .filter((t) => wallClockOf(t, zone) === naive)
    .sort((a, b) => a - b);
  if (candidates.length > 0) return candidates[0]!;
  // A gap: the wall clock jumps over `naive`. Search the transition between the instant that
  // shows an earlier wall-clock time and the one that shows a later one.
  let lo = Math.min(naive - before, naive - after);
  let hi = Math.max(naive - before, naive - after);
  if (wallClockOf(lo, zone) >= naive || wallClockOf(hi, zone) <= naive) return naive - before; // no transition found: not expected
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (wallClockOf(mid, zone) > naive) hi = mid;
    else lo = mid;
  }
  return Math.ceil(hi / MINUTE) * MINUTE;
}
