/**
 * The ports of the run engine: the few store operations a run needs, its metrics, the judging of
 * its condition (JudgeCondition: the reports feature implements it, as a condition lives with
 * reports) and the sending of its deliveries (DeliverRun: the deliveries feature implements it),
 * so runs know neither reports nor deliveries.
 */
import type { QueryParameter } from '../queries/parameters.js';
import type { RunCondition, RunError, RunRecord, RunStatus, RunStep, RunTrigger } from './model.js';
import type { CellValue, ResultColumn } from '../plugins/connector.js';
import type { ConnectionRecord } from '../connections/model.js';
import type { ChangeEvent } from '../events/model.js';
import type { PlannedAttempt } from '../channels/ports.js';

/** The SQL a run executes: the pinned query version, or the query's current one. */
export interface RunQuerySource {
  sql: string;
  parameters: QueryParameter[];
  connectionId: string;
  version: number;
}

export interface RunSource {
  query: Omit<RunQuerySource, 'connectionId'> | undefined;
  connection: ConnectionRecord | undefined;
  hasDeliveries: boolean;
}

export interface RunProgress {
  steps: RunStep[];
  queryVersion?: number | null;
  rowCount?: number | null;
  columns?: ResultColumn[] | null;
  sample?: CellValue[][] | null;
  conditionMet?: boolean | null;
  resultKey?: string | null;
  resultBytes?: number | null;
  resultHash?: string | null;
  /**
   * The result file's bytes when the artifact store answered them inline (a small result): the
   * run's end or hand-over writes them in its statement, under resultKey's `db:` key.
   */
  resultInline?: Buffer;
}

export interface RunOutcome extends RunProgress {
  status: Exclude<RunStatus, 'pending' | 'running'>;
  error: RunError | null;
  finishedAt: Date;
}

/** What a condition is judged on: the run's result. */
export interface ResultFacts {
  columns: ResultColumn[];
  rowCount: number;
  /** The first row, or undefined without rows. */
  firstRow: CellValue[] | undefined;
  /** The result's content hash, and the last successful run's (undefined: there was none). */
  hash: string;
  previousHash: string | undefined;
}

export interface ConditionOutcome {
  met: boolean;
  /** Why, in a few words (shown in the run's condition step). */
  reason: string;
}

/** Judges a run's condition on its result (implemented by the reports feature). */
export interface JudgeCondition {
  /** Whether the condition compares with the report's last successful result (whose hash is then read). */
  needsPreviousResult(condition: RunCondition): boolean;
  judge(condition: RunCondition, facts: ResultFacts): ConditionOutcome;
}

/** What a run's deliveries need to know of its report and query, and who queued it. */
export interface RunContext {
  report: { id: string; title: string; description: string | null };
  query: { id: string; name: string };
  /** The email address of whoever queued a test run (test runs send only to them). */
  callerEmail: string | null;
}

/** The status a run has reached when its deliveries are sent: its condition met, or not. */
export type DeliveringStatus = 'success' | 'skipped';

/** One delivery a run sends: its attempt is planned (pending) in the run's unit of work. */
export interface PlannedDelivery {
  deliveryId: string;
  channelId: string;
  channelName: string;
  channelType: string;
  position: number;
}

/** A planned attempt's job on the deliveries queue. */
export interface DeliveryJob {
  attemptId: string;
  runId: string;
  jobId: string;
  /** The attempt's channel, for its gate before the store is read (null: the channel was deleted). */
  channelId: string | null;
  /** The attempt's delivery, read with the attempt when it is taken (null: the delivery was removed). */
  deliveryId: string | null;
}

/**
 * A run's deliveries after its result file (implemented by the deliveries feature): the engine
 * plans them (their attempts commit pending with the run's progress) and hands them to the
 * deliveries queue after the commit; each is then a job of its own, and the last to settle ends
 * the run.
 */
export interface DeliverRun {
  /** The report's deliveries that a run ending `runStatus` sends, in order; empty when none apply (no delivery step). */
  plan(reportId: string, runStatus: DeliveringStatus): Promise<PlannedDelivery[]>;
  /** Queues the jobs of attempts already committed (a failure is left to the sweep, which finds them pending). */
  enqueue(jobs: DeliveryJob[]): Promise<void>;
}

/** The job id of a planned attempt's first job. */
export const firstDeliveryJobId = (attemptId: string): string => `deliver-${attemptId}`;

export interface RunEngineStore {
  /**
   * Takes the run: pending or running (a lost worker's) → running, attempts + 1, steps cleared.
   * Undefined when the run is gone, finished or cancelled.
   */
  start(runId: string, now: Date, steps?: RunStep[]): Promise<RunRecord | undefined>;
  /**
   * The worker's first statement: `start` and `source` in one, with the taken run's run.updated
   * event (runUpdated of the record after) written by the same statement, so the change and its
   * event commit together. Undefined when the run is not taken; source undefined when its
   * report is gone.
   */
  claim(runId: string, now: Date, steps?: RunStep[]): Promise<{ run: RunRecord; source: RunSource | undefined } | undefined>;
  /**
   * The worker's last statement: `finish` with `events` (built from the record after: the
   * caller knows it) written by the same statement only when the run was ended here. True when
   * it was ended here; false when it was gone, finished or taken again.
   */
  end(runId: string, attempt: number, outcome: RunOutcome, events: readonly ChangeEvent[]): Promise<boolean>;
  /**
   * In one read: the report's pinned query version or its query's current one (undefined when
   * gone), the connection it runs on (undefined when gone), and whether the report has
   * deliveries. Undefined when the report is gone.
   */
  source(reportId: string): Promise<RunSource | undefined>;
  /**
   * Saves progress of a running run in its attempt `attempt`; false when it is no longer running
   * in that attempt (gone, ended elsewhere, or taken again by another worker).
   */
  saveProgress(runId: string, attempt: number, progress: RunProgress, now: Date): Promise<boolean>;
  /** Ends the run's attempt `attempt`; the record after, or undefined when it was gone, finished or taken again. */
  finish(runId: string, attempt: number, outcome: RunOutcome): Promise<RunRecord | undefined>;
  /** The content hash of the report's newest successful run before this one. */
  previousSuccessHash(reportId: string, beforeRunId: string): Promise<string | undefined>;
  /**
   * Renews the run's lease (the worker holding this attempt is alive; the sweep leaves a run with
   * a fresh lease alone whatever Redis says) and answers whether to stop: a cancellation was asked
   * for, or the run is no longer this attempt's.
   */
  heartbeat(runId: string, attempt: number): Promise<boolean>;
  /** Ends a lost run failed (with `leaseMs`: only a pending one or one whose lease ran out); the record after, or undefined. */
  markLost(runId: string, error: RunError, now: Date, leaseMs?: number): Promise<RunRecord | undefined>;
  /**
   * The run's query and result file are done and its deliveries become jobs, in one statement:
   * saves the progress and marks it delivering (it stays running, no longer held by a worker:
   * start, the lease sweep and markLost leave it alone), plans its attempts (pending, each naming
   * its job) and writes the run.updated event of the record after, committed together.
   * False (nothing written) when the run is no longer running in attempt `attempt`.
   */
  handOver(runId: string, attempt: number, progress: RunProgress, now: Date, attempts: readonly PlannedAttempt[]): Promise<boolean>;
  /** Whether the run row still exists. */
  exists(runId: string): Promise<boolean>;
  /** The report's title and query, and the email of who queued the run (for deliveries); undefined when gone. */
  runContext(reportId: string, createdBy: string | null): Promise<RunContext | undefined>;
}

export interface RunMetrics {
  finished(status: RunStatus, trigger: RunTrigger, seconds: number): void;
  rows(count: number): void;
}
