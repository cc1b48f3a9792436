/**
 * Scheduler composition root: a tick loop. Each tick runs the scheduling tasks (issues add them:
 * due reports → runs → queue) and records its completion for the readiness check.
 */
import type { Logger } from './infra/log/logger.js';

export interface TickTask {
  name: string;
  run(now: Date): Promise<void>;
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
