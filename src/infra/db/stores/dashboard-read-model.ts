/**
 * The dashboard's read model (the dashboard domain's DashboardReadModel): every figure of the home
 * page in one statement, so one round trip and one snapshot. Each part goes through an index, so
 * the cost follows what is shown, not the size of the history (checked with EXPLAIN on 10,000
 * reports and 1,000,000 runs, scripts/bench/dashboard.ts):
 *
 * - reports by paused: a scan of reports (one row per report, no history);
 * - runs finished in the window, by status: runs_finished_idx (finished_at, where not null);
 * - reports whose last run failed: reports_last_run_idx merged with runs_failed_idx (the failed
 *   runs' ids), both index-only;
 * - the latest failures: runs_failures_idx backwards (finished_at, id where failed or partial),
 *   each with its report by primary key;
 * - the next runs: reports_due_idx (next_run_at where scheduled and not paused);
 * - channels by health: a scan of channels (one row per channel);
 * - the queue: runs_unfinished_idx (status, created_at where pending or running), index-only;
 * - open system problems: system_problems_open_key (where resolved_at is null).
 *
 * It only reads: system_problems is written by the alerts feature.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../client.js';
import type { DashboardReadModel } from '../../../domain/dashboard/ports.js';
import type { DashboardFigures, FinishedRunStatus, OpenProblem, ProblemSeverity } from '../../../domain/dashboard/model.js';

const FINISHED: readonly FinishedRunStatus[] = ['success', 'partial', 'skipped', 'failed', 'cancelled'];

/** json columns come back parsed by the driver; text when a driver leaves them alone. */
type Json<T> = T | string;
const parsed = <T>(value: Json<T>): T => (typeof value === 'string' ? JSON.parse(value) as T : value);

// A type (not an interface): rows of db.execute are records.
type FiguresRow = {
  reports: Json<{ active: number; paused: number }>;
  finished: Json<Record<string, number>>;
  failing_reports: number;
  recent_failures: Json<Array<{
    run_id: string; report_id: string; report_title: string; status: 'failed' | 'partial'; error_code: string | null; finished_at: string;
  }>>;
  next_runs: Json<Array<{ report_id: string; title: string; next_run_at: string }>>;
  channels: Json<Record<string, number>>;
  queue: Json<{ pending: number; oldest: string | null }>;
  problems: Json<Array<{ kind: string; severity: ProblemSeverity; message: string; opened_at: string }>>;
};

export function createDashboardReadModel(db: Db): DashboardReadModel {
  return {
    async figures(q): Promise<DashboardFigures> {
      const after = q.finishedAfter.toISOString();
      const by = q.finishedBy.toISOString();
      const rows = await db.execute<FiguresRow>(sql`
        select
          (select json_build_object('active', count(*) filter (where not paused), 'paused', count(*) filter (where paused))
             from reports) as reports,
          (select coalesce(json_object_agg(status, n), '{}'::json) from (
             select status, count(*)::int as n from runs
              where finished_at > ${after}::timestamptz and finished_at <= ${by}::timestamptz
              group by status) s) as finished,
          (select count(*)::int from reports p join runs l on l.id = p.last_run_id where l.status = 'failed') as failing_reports,
          (select coalesce(json_agg(f order by f.finished_at desc, f.run_id desc), '[]'::json) from (
             select x.id as run_id, x.report_id, p.title as report_title, x.status, x.error_code, x.finished_at
               from runs x join reports p on p.id = x.report_id
              where x.status in ('failed', 'partial') and x.finished_at is not null
              order by x.finished_at desc, x.id desc
              limit ${q.recentFailures}) f) as recent_failures,
          (select coalesce(json_agg(n order by n.next_run_at, n.report_id), '[]'::json) from (
             select id as report_id, title, next_run_at from reports
              where next_run_at is not null and not paused
              order by next_run_at, id
              limit ${q.nextRuns}) n) as next_runs,
          (select coalesce(json_object_agg(health, n), '{}'::json) from (
             select health, count(*)::int as n from channels group by health) c) as channels,
          (select json_build_object('pending', count(*), 'oldest', min(created_at)) from runs where status = 'pending') as queue,
          (select coalesce(json_agg(o order by o.critical desc, o.opened_at, o.id), '[]'::json) from (
             select id, kind, severity, message, opened_at, severity = 'critical' as critical from system_problems
              where resolved_at is null
              order by severity = 'critical' desc, opened_at, id
              limit ${q.openProblems}) o) as problems`);
      const row = (rows as unknown as FiguresRow[])[0]!;
      const finished = parsed(row.finished);
      const channels = parsed(row.channels);
      const reports = parsed(row.reports);
      const queue = parsed(row.queue);
      return {
        reports: { active: reports.active, paused: reports.paused },
        runsLast24h: Object.fromEntries(FINISHED.map((s) => [s, finished[s] ?? 0])) as Record<FinishedRunStatus, number>,
        failingReports: row.failing_reports,
        recentFailures: parsed(row.recent_failures).map((f) => ({
          runId: f.run_id, reportId: f.report_id, reportTitle: f.report_title, status: f.status, errorCode: f.error_code,
          finishedAt: new Date(f.finished_at),
        })),
        nextRuns: parsed(row.next_runs).map((n) => ({ reportId: n.report_id, title: n.title, nextRunAt: new Date(n.next_run_at) })),
        channels: { healthy: channels.healthy ?? 0, failing: channels.failing ?? 0, unknown: channels.unknown ?? 0 },
        queue: { pending: queue.pending, oldestPendingAt: queue.oldest ? new Date(queue.oldest) : null },
        openProblems: parsed(row.problems).map((p): OpenProblem => ({
          kind: p.kind, severity: p.severity, message: p.message, openedAt: new Date(p.opened_at),
        })),
      };
    },
  };
}
