/**
 * What the home page shows (GET /dashboard): counts read from the store in one statement
 * (src/infra/db/stores/dashboard-read-model.ts), the health banner made from the readiness
 * components and the open system problems (./banner.ts), and the queue's wait measured on the
 * injected clock. Everything here is for every signed-in member: no secret, no admin-only detail.
 */

export type ProblemSeverity = 'warning' | 'critical';

/** An open row of system_problems (resolved_at null), as viewers may see it. */
export interface OpenProblem {
  /** The problem's kind (scheduler.stalled, channel.failing, …): the banner item's code. */
  kind: string;
  severity: ProblemSeverity;
  /** Written by the alerts feature fit for everyone; shown as stored. */
  message: string;
  openedAt: Date;
}

export interface BannerItem {
  code: string;
  severity: ProblemSeverity;
  message: string;
  /** When the problem opened; null for a readiness component (known only as of now). */
  since: Date | null;
}

export interface Banner {
  level: 'ok' | ProblemSeverity;
  items: BannerItem[];
}

export type FinishedRunStatus = 'success' | 'partial' | 'skipped' | 'failed' | 'cancelled';

export interface RecentFailure {
  runId: string;
  reportId: string;
  reportTitle: string;
  status: 'failed' | 'partial';
  errorCode: string | null;
  finishedAt: Date;
}

export interface NextRun {
  reportId: string;
  title: string;
  nextRunAt: Date;
}

/** What the read model is asked: the window of runs_last_24h and how many of each list to take. */
export interface FiguresQuery {
  /** Runs that finished in (finishedAfter, finishedBy] are counted. */
  finishedAfter: Date;
  finishedBy: Date;
  recentFailures: number;
  nextRuns: number;
  openProblems: number;
}

/** The store's figures at one moment, read together (one statement, one snapshot). */
export interface DashboardFigures {
  reports: { active: number; paused: number };
  /** Runs that finished in the query's window, by status. */
  runsLast24h: Record<FinishedRunStatus, number>;
  /** Reports whose last run (reports.last_run_id) failed. */
  failingReports: number;
  /** The newest failed or partial runs, newest first. */
  recentFailures: RecentFailure[];
  /** The soonest next runs of unpaused reports, soonest first. */
  nextRuns: NextRun[];
  channels: { healthy: number; failing: number; unknown: number };
  queue: { pending: number; oldestPendingAt: Date | null };
  /** Open system problems, critical first, then oldest first. */
  openProblems: OpenProblem[];
}

export interface Dashboard extends Omit<DashboardFigures, 'queue' | 'openProblems'> {
  banner: Banner;
  queue: { pending: number; oldestPendingSeconds: number | null };
}

/** How many of the latest failures and of the next runs the home page lists. */
export const RECENT_FAILURES = 5;
export const NEXT_RUNS = 5;
/**
 * The most open problems the banner lists (critical ones first, so its level is always right).
 * One per kind and resource can be open: a fleet with many failing channels has as many.
 */
export const OPEN_PROBLEMS = 50;
/** The window of runs_last_24h. */
export const RUNS_WINDOW_MS = 24 * 3600_000;
