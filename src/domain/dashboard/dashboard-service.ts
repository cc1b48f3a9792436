/**
 * The home page (GET /dashboard): the store's figures from the read model, the health banner
 * from this process's readiness and the open system problems, and the queue's wait, all as of the
 * injected clock's now. It reads only; the store's figures and readiness are asked at once.
 */
import type { Clock } from '../../core/clock.js';
import type { Readiness } from '../health/readiness.js';
import { bannerOf } from './banner.js';
import { NEXT_RUNS, OPEN_PROBLEMS, RECENT_FAILURES, RUNS_WINDOW_MS, type Dashboard } from './model.js';
import type { DashboardReadModel } from './ports.js';

export function createDashboardService(deps: {
  readModel: DashboardReadModel;
  /** The readiness of this process, as GET /health/ready reports it. */
  readiness: () => Promise<Readiness>;
  clock: Clock;
}) {
  return {
    async get(): Promise<Dashboard> {
      const now = deps.clock.now();
      const query = {
        finishedAfter: new Date(now.getTime() - RUNS_WINDOW_MS), finishedBy: now,
        recentFailures: RECENT_FAILURES, nextRuns: NEXT_RUNS, openProblems: OPEN_PROBLEMS,
      };
      const [figures, readiness] = await Promise.all([deps.readModel.figures(query), deps.readiness()]);
      const { openProblems, queue, ...rest } = figures;
      const oldest = queue.oldestPendingAt;
      return {
        banner: bannerOf(readiness.components, openProblems),
        ...rest,
        queue: {
          pending: queue.pending,
          oldestPendingSeconds: oldest ? Math.max(0, Math.floor((now.getTime() - oldest.getTime()) / 1000)) : null,
        },
      };
    },
  };
}

export type DashboardService = ReturnType<typeof createDashboardService>;
