/**
 * The clock, injected wherever time decides something (expiry, throttles, schedules, retention,
 * a run's time limit and its cancel checks), so tests move time instead of sleeping: its timers
 * fire when a manual clock is moved past them, at once and in order.
 */
export interface Timer {
  /** Stops the timer; nothing happens when it already fired or was cancelled. */
  cancel(): void;
}

export interface Clock {
  now(): Date;
  /** Calls `fire` once, `ms` from now by this clock. */
  timer(ms: number, fire: () => void): Timer;
  /** Resolves `ms` from now by this clock; rejects with the signal's reason as soon as it is aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** `sleep` on top of a clock's `timer`. */
function sleepOn(timer: Clock['timer'], ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason); return; }
    const onAbort = () => { pending.cancel(); reject(signal!.reason); };
    const pending = timer(ms, () => { signal?.removeEventListener('abort', onAbort); resolve(); });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const systemClock: Clock = {
  now: () => new Date(),
  timer(ms, fire) {
    const handle = setTimeout(fire, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  },
  sleep: (ms, signal) => sleepOn(systemClock.timer, ms, signal),
};

/**
 * A clock that moves only when told: for tests and for replaying a moment. Moving it forward
 * fires the timers that fall due on the way, in the order of their times (then of their
 * setting), each with the clock at its own time; a timer set by one that fires goes off in the
 * same move when it falls within it. A timer's callback runs synchronously; what it starts
 * (promises) runs after the move returns, once the test awaits.
 */
export interface ManualClock extends Clock {
  /** Sets the time; moving forward fires the timers due by then. */
  set(at: Date): void;
  /** Moves the time forward by `ms`, firing the timers due by then. */
  advance(ms: number): void;
  /** Timers set and not yet fired or cancelled. */
  pendingTimers(): number;
}

export function manualClock(start: Date = new Date()): ManualClock {
  let at = start.getTime();
  let order = 0;
  /** Waiting timers by due time, then order. */
  const timers: Array<{ due: number; order: number; fire: () => void }> = [];
  const moveTo = (target: number) => {
    for (;;) {
      let next = -1;
      for (let i = 0; i < timers.length; i += 1) {
        const t = timers[i]!;
        if (t.due > target) continue;
        if (next < 0 || t.due < timers[next]!.due || (t.due === timers[next]!.due && t.order < timers[next]!.order)) next = i;
      }
      if (next < 0) break;
      const [due] = timers.splice(next, 1);
      at = Math.max(at, due!.due);
      due!.fire();
    }
    at = Math.max(at, target);
  };
  const clock: ManualClock = {
    now: () => new Date(at),
    timer(ms, fire) {
      const entry = { due: at + Math.max(0, ms), order: order++, fire };
      timers.push(entry);
      return {
        cancel: () => {
          const i = timers.indexOf(entry);
          if (i >= 0) timers.splice(i, 1);
        },
      };
    },
    sleep: (ms, signal) => sleepOn(clock.timer, ms, signal),
    set: (d) => {
      const target = d.getTime();
      if (target >= at) moveTo(target);
      else at = target;
    },
    advance: (ms) => moveTo(at + ms),
    pendingTimers: () => timers.length,
  };
  return clock;
}
