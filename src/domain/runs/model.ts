/** Runs: one execution of a report, queued by its schedule, by hand or as a test. */
import { stateMachine, type Transition } from '../../core/state-machine.js';
import type { CellValue, ResultColumn } from '../plugins/connector.js';
import type { BoundValue } from '../queries/sql-template.js';

export const RUN_STATUSES = ['pending', 'running', 'success', 'partial', 'skipped', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type RunTrigger = 'schedule' | 'manual' | 'test';

/**
 * The report's condition as a run keeps it, copied when the run is queued. Reports own its shape
 * and its meaning (reports/condition.ts): the run engine has it judged through the
 * JudgeCondition port and otherwise only carries it.
 */
export interface RunCondition {
  readonly type: string;
}

/**
 * The run's state machine, one row per transition: the statuses it leaves and the statuses it may
 * reach. Every status write of the store is one of these rows, its WHERE clause the row's `from`
 * (tests/unit/state-machines.test.ts holds the store's writes to this table). A status no row leaves
 * is terminal.
 */
export const RUN_TRANSITIONS = {
  /** A run is queued (by its schedule, by hand, as a test): it starts pending. */
  queue: { from: [], to: ['pending'] },
  /** A worker takes it: a queued one, or a running one whose worker was lost (attempts + 1). */
  start: { from: ['pending', 'running'], to: ['running'] },
  /** Its worker records its end. */
  finish: { from: ['running'], to: ['success', 'partial', 'skipped', 'failed', 'cancelled'] },
  /** Cancelled before a worker took it (a running one is asked to stop, and ends by `finish`). */
  cancelPending: { from: ['pending'], to: ['cancelled'] },
  /** Its worker is lost for good, or it was never taken: failed with run.worker_lost. */
  lose: { from: ['pending', 'running'], to: ['failed'] },
  /**
   * A resend delivered what had failed: a run that ended partial, or failed by its deliveries,
   * takes the status its attempts now give (all sent: success, or skipped; some: partial).
   */
  settle: { from: ['partial', 'failed'], to: ['success', 'skipped', 'partial'] },
} as const satisfies Record<string, Transition<RunStatus>>;

export type RunTransitions = typeof RUN_TRANSITIONS;
export type RunTransition = keyof RunTransitions;

export const RUN_STATES = stateMachine(RUN_STATUSES, RUN_TRANSITIONS);

/** The statuses transition `name` leaves: the WHERE clause of its write. */
export const fromStatuses = <N extends RunTransition>(name: N): RunTransitions[N]['from'] => RUN_STATES.fromStatuses(name);

/** Statuses no transition leaves (success, skipped, cancelled): a run there never changes again. */
export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = RUN_STATES.terminal;

/** A finished run: one its worker ended (every status `finish` reaches); partial and failed may still settle. */
export const FINISHED_STATUSES: ReadonlySet<RunStatus> = new Set(RUN_TRANSITIONS.finish.to);
export const isFinished = (s: RunStatus): boolean => FINISHED_STATUSES.has(s);

/** How many first rows a run keeps as its sample. */
export const SAMPLE_ROWS = 20;

export interface RunError {
  /** A stable code: query.failed, query.timeout, run.worker_lost, run.parameters_invalid, … */
  code: string;
  message: string;
}

export type StepName = 'query' | 'condition' | 'result_file' | 'delivery';
export type StepStatus = 'running' | 'success' | 'skipped' | 'failed' | 'cancelled';

export interface RunStep {
  name: StepName;
  status: StepStatus;
  startedAt: Date;
  finishedAt: Date | null;
  error: RunError | null;
  /** rows and elapsed_ms (query), met (condition), bytes (result_file), … */
  detail?: Record<string, unknown>;
}

export interface RunRecord {
  id: string;
  reportId: string;
  trigger: RunTrigger;
  status: RunStatus;
  deliver: boolean;
  /** The schedule's time a scheduled run is for; null otherwise. */
  slot: Date | null;
  parameters: Record<string, BoundValue>;
  condition: RunCondition | null;
  conditionMet: boolean | null;
  queryVersion: number | null;
  rowCount: number | null;
  columns: ResultColumn[] | null;
  sample: CellValue[][] | null;
  steps: RunStep[];
  error: RunError | null;
  /** The stored result file's key in the artifact store (null: none kept). */
  resultKey: string | null;
  resultBytes: number | null;
  resultHash: string | null;
  attempts: number;
  createdBy: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  cancelRequestedAt: Date | null;
  /**
   * When its query and result file were done and its deliveries became jobs of their own (the
   * run stays running until they settle); null before that, or when it sends none.
   */
  deliveringSince: Date | null;
}

/** The job that executes a run: the BullMQ job id is the run id (ids are UUIDs: no ':'). */
export interface RunJobPayload {
  runId: string;
  /** For the log lines about the run (every one carries run_id and report_id). */
  reportId?: string | undefined;
}

/** Abort reason of a run's signal when someone cancelled it: the run ends `cancelled`. */
export class RunCancelled extends Error {
  constructor() { super('The run was cancelled'); this.name = 'RunCancelled'; }
}

/** Abort reason of a run's signal past SVC_RUN_TIMEOUT_SECONDS: the run ends `failed` with run.timeout. */
export class RunTimedOut extends Error {
  constructor(readonly timeoutMs: number) {
    super(`The run took longer than its limit of ${Math.round(timeoutMs / 1000)} s and was stopped`);
    this.name = 'RunTimedOut';
  }
}

/**
 * Starts of one run before it ends failed with run.worker_lost: a run whose worker dies is taken
 * again by another, at most this many times in all (BullMQ's stalled limit and the sweep agree).
 */
export const MAX_RUN_STARTS = 3;

/** Enqueues a run's job (the job id is the run id, so a repeat adds nothing). */
export interface RunQueue {
  enqueue(runId: string, reportId: string): Promise<void>;
}
