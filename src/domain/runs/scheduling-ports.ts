/** The ports of scheduling: claiming due reports into runs, and the sweep of lost runs. */
import type { BoundValue } from '../queries/sql-template.js';
import type { Schedule } from '../schedules/schedule.js';
import type { RunCondition, RunRecord } from './model.js';

export interface DueReport {
  id: string;
  schedule: Schedule;
  nextRunAt: Date;
  parameters: Record<string, BoundValue>;
  condition: RunCondition | null;
}

/** What the tick decides for one claimed report. */
export interface PlannedRun {
  reportId: string;
  runId: string;
  slot: Date;
  /** The report's next time after now (null: its schedule has no more). */
  next: Date | null;
  parameters: Record<string, BoundValue>;
  condition: RunCondition | null;
}

export interface CreatedRun {
  runId: string;
  reportId: string;
  slot: Date;
  next: Date | null;
}

/** Claiming due reports into runs, in the scheduler's unit of work (one per batch). */
export interface ScheduleClaims {
  /**
   * Locks up to `limit` due reports (not paused, next_run_at <= now) that no other scheduler
   * holds (FOR UPDATE SKIP LOCKED), until the unit of work ends.
   */
  lockDue(now: Date, limit: number): Promise<DueReport[]>;
  /**
   * Inserts the planned runs as pending (a run that exists for the same report and slot is not
   * made again) and advances the reports' next_run_at and last run. Answers the runs made.
   */
  createRuns(planned: PlannedRun[], now: Date): Promise<CreatedRun[]>;
}

export interface SchedulingStore {
  /**
   * Runs the sweep looks at, oldest first, after the cursor `after` when given: pending runs
   * created before `before`, and running runs whose lease has run out (no heartbeat from their
   * worker for `leaseMs` by the store's clock).
   */
  unfinishedBefore(before: Date, limit: number, after: { createdAt: Date; id: string } | undefined, leaseMs: number):
    Promise<Array<Pick<RunRecord, 'id' | 'reportId' | 'status' | 'trigger' | 'createdAt' | 'attempts'>>>;
  /**
   * Ends a run failed when it is still unfinished (and, with `leaseMs`, when it is pending or its
   * lease has run out: a worker that just came back keeps its run), with its delivery attempts
   * left sending (or queued) failed delivery.worker_lost and its events, in one unit of work
   * (endLostRun, as the worker does for a job failed for good); the record after, or undefined.
   */
  markLost(runId: string, error: { code: string; message: string }, now: Date, leaseMs?: number): Promise<RunRecord | undefined>;
}

/** The BullMQ side of runs, for the sweep. */
export interface RunJobs {
  /** The state of the run's job: 'missing' when there is none. */
  state(runId: string): Promise<'missing' | 'waiting' | 'active' | 'delayed' | 'prioritized' | 'completed' | 'failed' | 'waiting-children' | 'unknown'>;
  /** Enqueues the run again (replacing a finished job with that id). */
  requeue(run: { id: string; reportId: string }): Promise<void>;
  /** Enqueues many runs at once (job id = run id). */
  enqueueMany(runs: Array<{ id: string; reportId: string }>): Promise<void>;
}
