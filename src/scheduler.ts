/**
 * Scheduler composition root: a tick loop. Each tick runs the scheduling tasks (identity
 * housekeeping now; due reports → runs → queue when reports land) and records its completion
 * for the readiness check.
 */
import type { Logger } from './infra/log/logger.js';
import { systemClock, type Clock } from './core/clock.js';

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

export function createScheduler(deps: { tickSeconds: number; tasks: TickTask[]; logger: Logger; clock?: Clock }): SchedulerRole {
  const clock = deps.clock ?? systemClock;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let last: Date | undefined;
  const startedAt = clock.now();

  const tick = async () => {
    const now = clock.now();
    let ok = true;
    for (const task of deps.tasks) {
      try {
        await task.run(now);
      } catch (err) {
        if (task.essential !== false) ok = false;
        deps.logger.error('scheduler task failed', { task: task.name, err });
      }
    }
    if (ok) last = clock.now();
  };

  const loop = () => {
    if (stopped) return;
    running = tick().finally(() => {
      running = undefined;
      if (!stopped) timer = setTimeout(loop, deps.tickSeconds * 1000);
    });
  };

  return {
    tickSeconds: deps.tickSeconds,
    startedAt,
    lastTickAt: () => last,
    start() {
      deps.logger.info('scheduler started', { tick_seconds: deps.tickSeconds });
      loop();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      deps.logger.info('scheduler stopped');
    },
  };
}
