/** The ports of the alerts feature: the problems' store, the snapshot they are judged on, the lease. */
import type { Page, PageRequest } from '../../core/cursor.js';
import type { AlertEvent, AlertSendRecord, DetectedProblem, HeartbeatStatus, ProblemKind, ProblemRecord } from './model.js';

/**
 * The system problems, their alert sends, and the operations' status rows. Bound to the
 * database, it follows the unit of work in progress (its writes commit with the events).
 */
export interface ProblemsRepo {
  open(): Promise<ProblemRecord[]>;
  /** Opens it unless one of its fingerprint is open (the store decides): undefined then. */
  insert(problem: DetectedProblem & { id: string }, now: Date): Promise<ProblemRecord | undefined>;
  /** Marks it seen now, with its current message, severity and stage. */
  touch(id: string, seen: Pick<DetectedProblem, 'message' | 'severity'> & { stage: string | null }, now: Date): Promise<void>;
  /** Resolves it if it is still open; undefined when another evaluator did first. */
  resolve(id: string, now: Date): Promise<ProblemRecord | undefined>;
  /** An alert about it went out (or was tried): the repeat clock starts again. */
  alerted(id: string, now: Date): Promise<void>;
  recordSend(send: Omit<AlertSendRecord, 'id'>): Promise<void>;
  /** Open and resolved problems, newest first (opened_at, id). */
  list(q: PageRequest & { state?: 'open' | 'resolved' | undefined; kind?: ProblemKind | undefined }): Promise<Page<ProblemRecord>>;
  find(id: string): Promise<ProblemRecord | undefined>;
  /** The alert sends about one problem, oldest first. */
  sendsOf(problemId: string): Promise<AlertSendRecord[]>;
  /** The latest send per channel (sent and failed), and the latest problem alert. */
  sendStatus(): Promise<{
    channels: Array<{ channelId: string; lastSentAt: Date | null; lastError: string | null; lastErrorAt: Date | null }>;
    lastAlert: { problemId: string; kind: string; event: Exclude<AlertEvent, 'test'>; at: Date } | null;
  }>;
}

export interface OpsStatusRepo {
  get(key: string): Promise<Record<string, unknown> | undefined>;
  put(key: string, value: Record<string, unknown>, now: Date): Promise<void>;
  heartbeat(): Promise<HeartbeatStatus | undefined>;
  putHeartbeat(status: HeartbeatStatus, now: Date): Promise<void>;
}

/** A lease on the store: one holder at a time across the fleet, for `ms` from now unless renewed. */
export interface Leases {
  acquire(name: string, holder: string, ms: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
}

/** What the store, Redis and this process know now, for the checks (problems.ts). */
export interface ProblemSnapshot {
  now: Date;
  /** The last tick any scheduler completed; null when none has been recorded. */
  lastSchedulerTickAt: Date | null;
  /** Since when this evaluator runs (a fresh fleet gets the grace before scheduler.stalled). */
  evaluatingSince: Date;
  queue: { redisAnswers: boolean; redisError: string | null; pending: number; oldestPendingAt: Date | null };
  /** Runs that ended run.worker_lost within the last hour. */
  lostRuns: { count: number; latestAt: Date | null };
  failingChannels: Array<{ id: string; name: string; since: Date | null }>;
  /** Reports whose last `failureStreak` finished runs all failed. */
  failingReports: Array<{ id: string; title: string; streak: number; lastError: string | null }>;
  storage: { writable: boolean; error: string | null; freePercent: number | null };
  retention: { failing: boolean; error: string | null; since: Date | null };
  gitops: { failing: boolean } | null;
  ai: { failing: boolean; error: string | null } | null;
  /** API keys not revoked that expire within the first stage's days. */
  expiringKeys: Array<{ id: string; name: string; expiresAt: Date }>;
}

export interface ProblemSnapshotSource {
  read(now: Date, thresholds: { failureStreak: number }): Promise<ProblemSnapshot>;
}
