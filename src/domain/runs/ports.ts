/** The ports of the runs API: reading runs, queuing manual and test runs, cancelling. */
import type { ChangeEvent } from '../events/model.js';
import type { Page, PageRequest } from '../../core/cursor.js';
import type { BoundValue } from '../queries/sql-template.js';
import type { RunCondition, RunRecord, RunStatus, RunTrigger } from './model.js';
import type { AttemptRecord } from '../channels/model.js';

export interface RunFilter {
  status?: RunStatus | undefined;
  reportId?: string | undefined;
  trigger?: RunTrigger | undefined;
}

/** What a new run copies from its report. */
export interface RunSource {
  id: string;
  parameters: Record<string, BoundValue>;
  condition: RunCondition | null;
}

export interface NewRun {
  id: string;
  reportId: string;
  trigger: RunTrigger;
  deliver: boolean;
  parameters: Record<string, BoundValue>;
  condition: RunCondition | null;
  createdBy: string | null;
  createdAt: Date;
}

export interface IdempotencyClaim {
  userId: string;
  operation: string;
  key: string;
  requestHash: string;
  /** Records older than this are expired: the key may be used afresh. */
  notBefore: Date;
}

export type IdempotentOutcome =
  | { kind: 'created'; run: RunRecord }
  | { kind: 'repeated'; run: RunRecord }
  | { kind: 'mismatch' }
  | { kind: 'gone' };

export interface RunsRepo {
  find(id: string): Promise<RunRecord | undefined>;
  /** Newest first (created_at, id). */
  list(filter: RunFilter, page: PageRequest): Promise<Page<RunRecord>>;
  /** The report a new run is made from, or undefined. */
  runSource(reportId: string): Promise<RunSource | undefined>;
  /**
   * Inserts the run and points the report's last run at it; undefined when the report is gone
   * (deleted after runSource read it).
   */
  insert(run: NewRun): Promise<RunRecord | undefined>;
  /**
   * The API's one statement for a run without an Idempotency-Key: inserts the run with its
   * report's parameters and condition, points the report's last run at it and writes `events`
   * (built from the run as it will be), all in one statement, so the run commits with its
   * events; undefined (nothing written) when the report is gone. Outside any unit of work.
   */
  queue(run: Omit<NewRun, 'parameters' | 'condition'>, events: readonly ChangeEvent[]): Promise<RunRecord | undefined>;
  /**
   * Inserts the run under an Idempotency-Key, in the caller's unit of work: when the key was used (and has
   * not expired) answers that run (same request hash) or a mismatch; concurrent repeats wait on
   * the key and then see the first one's run. `gone` when the report is gone: deleted after
   * runSource read it, or (a repeat) with the key's first run.
   */
  insertIdempotent(run: NewRun, claim: IdempotencyClaim): Promise<IdempotentOutcome>;
  /** pending → cancelled at once; answers the run after the attempt and whether it was cancelled now (undefined: no such run). */
  cancelPending(id: string, now: Date): Promise<{ run: RunRecord; cancelled: boolean } | undefined>;
  /** Marks a running run's cancellation as asked for (cancel_requested_at); answers the run after the attempt and whether it is running with the request recorded. */
  requestCancel(id: string, now: Date): Promise<{ run: RunRecord; requested: boolean } | undefined>;
  /**
   * The run with its delivery attempts in delivery order, read in one statement (one snapshot):
   * an attempt's end and the run's settling commit together, so a reader never sees one without
   * the other. Undefined when there is no such run. A single statement on the store, outside
   * any unit of work (it reads what is committed), like `queue`.
   */
  findWithAttempts(id: string): Promise<{ run: RunRecord; attempts: AttemptRecord[] } | undefined>;
  /** The report's newest finished run with a result file (delivery previews). */
  latestResultRun(reportId: string): Promise<RunRecord | undefined>;
  /**
   * After a resend: a finished run that ended partial or failed by its deliveries takes the
   * status its attempts now give; the run after when it changed.
   */
  settleDeliveries(runId: string, now: Date): Promise<RunRecord | undefined>;
  /**
   * Locks the run's row until the unit of work ends (the attempts of one run settle it one at a
   * time, so the last one to end sees every other end) and answers it.
   */
  lockForSettling(runId: string): Promise<RunRecord | undefined>;
  /** Deletes Idempotency-Key records older than `before` (they answer nothing any more); answers how many. */
  purgeIdempotencyKeys(before: Date): Promise<number>;
}
