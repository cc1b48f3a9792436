/**
 * The clock, injected wherever time decides something (expiry, throttles, schedules,
 * retention), so tests move time instead of sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told: for tests and for replaying a moment. */
export interface ManualClock extends Clock {
  set(at: Date): void;
  advance(ms: number): void;
}

export function manualClock(start: Date = new Date()): ManualClock {
  let at = start.getTime();
  return {
    now: () => new Date(at),
    set: (d) => { at = d.getTime(); },
    advance: (ms) => { at += ms; },
  };
}
