/** The ports of the run engine: the few store operations a run needs, its metrics, its events. */
import type { QueryParameter } from '../queries/parameters.js';
import type { RunContext } from '../deliveries/sender.js';
import type { RunError, RunRecord, RunStatus, RunStep, RunTrigger } from './model.js';
import type { CellValue, ResultColumn } from '../plugins/connector.js';
import type { ConnectionRecord } from '../connections/model.js';

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
}

export interface RunOutcome extends RunProgress {
  status: Exclude<RunStatus, 'pending' | 'running'>;
  error: RunError | null;
  finishedAt: Date;
}

export interface RunEngineStore {
  /**
   * Takes the run: pending or running (a lost worker's) → running, attempts + 1, steps cleared.
   * Undefined when the run is gone, finished or cancelled.
   */
  start(runId: string, now: Date, steps?: RunStep[]): Promise<RunRecord | undefined>;
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
  /** Ends failed the delivery attempts a lost run's worker left sending or queued. */
  failLostAttempts(runId: string, now: Date): Promise<void>;
  /** Whether the run row still exists. */
  exists(runId: string): Promise<boolean>;
  /** The report's title and query, and the email of who queued the run (for deliveries); undefined when gone. */
  runContext(reportId: string, createdBy: string | null): Promise<RunContext | undefined>;
}

export interface RunMetrics {
  finished(status: RunStatus, trigger: RunTrigger, seconds: number): void;
  rows(count: number): void;
}
