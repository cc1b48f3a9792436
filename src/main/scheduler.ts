/**
 * Scheduler composition root: a tick loop. node-cron wakes it every second; a tick starts when
 * SVC_SCHEDULER_TICK_SECONDS have passed since the last one began (never two at once). Each tick
 * runs the scheduling tasks (due reports → runs → queue, the sweep, housekeeping) with the
 * injected clock's time and records its completion for the readiness check.
 */
import type { Logger } from '../infra/log/logger.js';
import { randomUUID } from 'node:crypto';
import { schedule, type ScheduledTask } from 'node-cron';
import { systemClock, type Clock } from '../core/clock.js';

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

export interface SchedulerRole {
  start(): void;
  stop(): Promise<void>;
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
}): SchedulerRole {
  const clock = deps.clock ?? systemClock;
  const time = deps.time ?? (async () => clock.now());
  let wake: ScheduledTask | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let last: Date | undefined;
  /** Real (monotonic) time the last tick began: ticks are spaced on it, whatever the clock says. */
  let lastStartMs = Number.NEGATIVE_INFINITY;
  const startedAt = clock.now();

  const tick = async () => {
    let now: Date;
    try {
      now = await time();
    } catch (err) {
      deps.logger.error('scheduler task failed', { task: 'store time', err });
      return;
    }
    let ok = true;
    for (const task of deps.tasks) {
      if (stopped) return;
      try {
        await task.run(now);
      } catch (err) {
        if (task.essential !== false) ok = false;
        deps.logger.error('scheduler task failed', { task: task.name, err });
      }
    }
    if (ok) last = clock.now();
  };

  /** Called every second by node-cron: starts a tick when one is due and none is running. */
  const onWake = () => {
    if (stopped || running) return;
    const nowMs = performance.now();
    if (nowMs - lastStartMs < deps.tickSeconds * 1000 - 50) return;
    lastStartMs = nowMs;
    running = tick().finally(() => { running = undefined; });
  };

  return {
    tickSeconds: deps.tickSeconds,
    startedAt,
    lastTickAt: () => last,
    start() {
      deps.logger.info('scheduler started', { tick_seconds: deps.tickSeconds });
      // node-cron only wakes the loop (every second, in UTC); what is due comes from the store.
      wake = schedule('* * * * * *', onWake, { name: `herald-scheduler-${randomUUID()}`, timezone: 'Etc/UTC' });
      onWake();
    },
    async stop() {
      stopped = true;
      await wake?.destroy();
      wake = undefined;
      await running;
      deps.logger.info('scheduler stopped');
    },
  };
}
