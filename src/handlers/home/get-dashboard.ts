import type { Handler } from '../types.js';
import type { ApiServices } from '../services.js';

type Deps = Pick<ApiServices, 'dashboard'>;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** GET /dashboard: the home summary and the health banner, for every signed-in member. */
export const getDashboard = (d: Deps): Handler<'getDashboard'> => async () => {
  const s = await d.dashboard.get();
  return {
    status: 200,
    body: {
      banner: {
        level: s.banner.level,
        items: s.banner.items.map((i) => ({ code: i.code, severity: i.severity, message: i.message, since: iso(i.since) })),
      },
      reports: { active: s.reports.active, paused: s.reports.paused },
      runs_last_24h: {
        success: s.runsLast24h.success, partial: s.runsLast24h.partial, skipped: s.runsLast24h.skipped,
        failed: s.runsLast24h.failed, cancelled: s.runsLast24h.cancelled,
      },
      failing_reports: s.failingReports,
      recent_failures: s.recentFailures.map((f) => ({
        run_id: f.runId, report_id: f.reportId, report_title: f.reportTitle, status: f.status, error_code: f.errorCode,
        finished_at: f.finishedAt.toISOString(),
      })),
      next_runs: s.nextRuns.map((n) => ({ report_id: n.reportId, title: n.title, next_run_at: n.nextRunAt.toISOString() })),
      channels: { healthy: s.channels.healthy, failing: s.channels.failing, unknown: s.channels.unknown },
      queue: { pending: s.queue.pending, oldest_pending_seconds: s.queue.oldestPendingSeconds },
    },
  };
};
