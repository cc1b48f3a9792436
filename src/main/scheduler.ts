/**
 * Scheduler composition root: a tick loop. A tick starts every SVC_SCHEDULER_TICK_SECONDS, and
 * at the start of every minute of the store's clock (schedules are by the minute), on a timer of
 * the injected clock (never two at once: one that falls due while the last still runs
 * starts when that ends). Each tick runs the scheduling tasks (due reports → runs → queue, the
 * sweep, housekeeping) with the injected clock's time and records its completion for the
 * readiness check.
 */
import type { Logger } from '../infra/log/logger.js';
import { systemClock, type Clock, type Timer } from '../core/clock.js';

export interface TickTask {
  name: string;
  run(now: Date): Promise<void>;
  /**
   * Whether a failure makes the tick count as not completed (readiness turns unhealthy): true
   * for the scheduling itself, false for housekeeping, whose failure is only logged.
   */
  essential?: boolean;
}

/**
 * Housekeeping that does its work on the first tick and then at most once an hour; after a
 * failure it tries again in five minutes, not on every tick. Its failures do not make the
 * scheduler unready.
 */
export function hourly(name: string, work: (now: Date) => Promise<void>): TickTask {
  let due = 0;
  return {
    name,
    essential: false,
    async run(now) {
      if (now.getTime() < due) return;
      due = now.getTime() + 5 * 60_000;
      await work(now);
      due = now.getTime() + 3600_000;
    },
  };
}

/** A tick at a minute's start wakes this long after it by the store's clock (clocks drift apart between ticks). */
const MINUTE_MARGIN_MS = 20;

export interface SchedulerRole {
  start(): void;
  stop(): Promise<void>;
  /** When the last completed tick began (undefined before the first). */
  lastTickAt(): Date | undefined;
  readonly tickSeconds: number;
  readonly startedAt: Date;
}

export function createScheduler(deps: {
  tickSeconds: number; tasks: TickTask[]; logger: Logger; clock?: Clock;
  /**
   * The time a tick decides by (what is due, the runs' slots): the store's clock, shared by every
   * scheduler, so that one whose own clock runs ahead never starts runs early. The clock's when unset.
   */
  time?: () => Promise<Date>;
  /** After each completed tick, with its time: records it where the whole fleet sees it (the problems' scheduler.stalled). */
  completed?: (at: Date) => Promise<void>;
}): SchedulerRole {
  const clock = deps.clock ?? systemClock;
  const time = deps.time ?? (async () => clock.now());
  let wake: Timer | undefined;
  let running: Promise<void> | undefined;
  /** The next tick fell due while one was running: it starts when that ends. */
  let due = false;
  let stopped = false;
  let last: Date | undefined;
  const startedAt = clock.now();

  /** How far the store's clock (the time ticks decide by) is ahead of this process's, as of the last tick. */
  let storeAhead = 0;

  const tick = async () => {
    // A tick counts from when it began: a clock moved while it ran is the next tick's to see.
    const begun = clock.now();
    let now: Date;
    try {
      now = await time();
      storeAhead = now.getTime() - begun.getTime();
    } catch (err) {
      deps.logger.error('scheduler task failed', { task: 'store time', err });
      return;
    }
    let ok = true;
    for (const task of deps.tasks) {
      if (stopped) return;
      const started = clock.now().getTime();
      try {
        await task.run(now);
        // A task that holds the tick past its length delays the due reports of the next one.
        const ms = clock.now().getTime() - started;
        if (ms > deps.tickSeconds * 1000) deps.logger.warn('scheduler task slow', { task: task.name, ms });
      } catch (err) {
        if (task.essential !== false) ok = false;
        deps.logger.error('scheduler task failed', { task: task.name, err });
      }
    }
    if (!ok) return;
    last = begun;
    await deps.completed?.(now).catch((err: unknown) => deps.logger.warn('scheduler tick not recorded', { err }));
  };

  /**
   * Until the next tick: the tick's length, or less when a minute of the store's clock begins
   * sooner (schedules are by the minute: their runs are queued just after it begins, not up to a
   * tick later).
   */
  const toMinuteMs = (): number => {
    const store = clock.now().getTime() + storeAhead;
    return 60_000 - (((store % 60_000) + 60_000) % 60_000) + MINUTE_MARGIN_MS;
  };
  /** When the timer fires (the process's clock, ms). */
  let wakeAt = 0;
  const arm = (ms: number) => {
    wake?.cancel();
    wakeAt = clock.now().getTime() + ms;
    wake = clock.timer(ms, onWake);
  };

  /**
   * A tick is due: it starts now (and the next one is set for a tick's length after this start)
   * unless one is running. The timer is the clock's: the system clock's runs on the monotonic
   * time, so ticks keep their spacing when the wall clock is set; a manual clock ticks as a test
   * moves it.
   */
  const onWake = () => {
    if (stopped) return;
    if (running) { due = true; return; }
    due = false;
    arm(Math.min(deps.tickSeconds * 1000, toMinuteMs()));
    // After the code that moved the clock has finished (a manual clock fires timers synchronously).
    running = Promise.resolve().then(tick).catch((err: unknown) => {
      // tick handles its tasks' failures; this is for one of its own (a logger that throws).
      try { deps.logger.error('scheduler tick failed', { err }); } catch { /* nothing left to tell */ }
    }).finally(() => {
      running = undefined;
      if (due) onWake();
      // The tick learnt the store's clock: the next minute by it may come before the timer.
      else if (!stopped && wake && clock.now().getTime() + toMinuteMs() < wakeAt) arm(toMinuteMs());
    });
  };

  return {
    tickSeconds: deps.tickSeconds,
    startedAt,
    lastTickAt: () => last,
    start() {
      if (wake || running || stopped) return; // started once
      deps.logger.info('scheduler started', { tick_seconds: deps.tickSeconds });
      // The timer only wakes the loop; what is due comes from the store's time.
      onWake();
    },
    async stop() {
      stopped = true;
      wake?.cancel();
      wake = undefined;
      await running;
      deps.logger.info('scheduler stopped');
    },
  };
}
