/**
 * Scheduler composition root: a tick loop. Each tick runs the scheduling tasks (identity
 * housekeeping now; due reports → runs → queue when reports land) and records its completion
 * for the readiness check.
 */
import type { Logger } from './infra/log/logger.js';

export interface TickTask {
  name: string;
  run(now: Date): Promise<void>;
}

/** A task that does its work on the first tick and then at most once an hour. */
export function hourly(name: string, work: (now: Date) => Promise<void>): TickTask {
  let due = 0;
  return {
    name,
    async run(now) {
      if (now.getTime() < due) return;
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

export function createScheduler(deps: { tickSeconds: number; tasks: TickTask[]; logger: Logger }): SchedulerRole {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let last: Date | undefined;
  const startedAt = new Date();

  const tick = async () => {
    const now = new Date();
    let ok = true;
    for (const task of deps.tasks) {
      try {
        await task.run(now);
      } catch (err) {
        ok = false;
        deps.logger.error('scheduler task failed', { task: task.name, err });
      }
    }
    if (ok) last = new Date();
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
