/**
 * The run job: executes one run with the run engine. The job's time limit (past the engine's own
 * SVC_RUN_TIMEOUT_SECONDS) and cancellations become the engine's abort reasons; a shutdown passes
 * through as it is, so the engine hands the run back unrecorded. When the job fails for good
 * (workers lost three times, or the service's own faults on every attempt) the run ends failed,
 * never `running` forever.
 */
import { RunCancelled, RunTimedOut, type RunJobPayload } from '../domain/runs/model.js';
import type { RunEngine } from '../domain/runs/run-engine.js';
import { runJobSpec } from './run-report-spec.js';
import { JobTimeoutError, WorkersLostError, type JobType } from './catalog.js';

/** How long (ms) the job's limit leaves the engine past its own, to record a timeout itself. */
const RECORD_GRACE_MS = 30_000;

/** The runs this worker process executes now, to stop one when it is cancelled. */
/** The work this process does for runs now (a run's query, its deliveries), to stop it when the run is cancelled. */
export interface ActiveRuns {
  add(runId: string, controller: AbortController): void;
  delete(runId: string, controller: AbortController): void;
}

export function createActiveRuns() {
  const held = new Map<string, Set<AbortController>>();
  return {
    add: (runId: string, c: AbortController) => {
      const set = held.get(runId) ?? new Set<AbortController>();
      set.add(c);
      held.set(runId, set);
    },
    delete: (runId: string, c: AbortController) => {
      const set = held.get(runId);
      set?.delete(c);
      if (set?.size === 0) held.delete(runId);
    },
    /** Stops the run's work that this process holds; true when it held some. */
    cancel(runId: string): boolean {
      const set = held.get(runId);
      if (!set) return false;
      for (const c of set) c.abort(new RunCancelled());
      return true;
    },
    size: () => held.size,
  };
}

export function runReportJob(deps: {
  engine: RunEngine;
  timeoutMs: number;
  active: ActiveRuns;
  /** Ends the run failed when its job failed for good. */
  markLost(runId: string, error: { code: string; message: string }): Promise<void>;
}): JobType<RunJobPayload> {
  return {
    ...runJobSpec,
    timeoutMs: deps.timeoutMs + RECORD_GRACE_MS,
    async handle({ runId, reportId }, { signal }) {
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal.reason instanceof JobTimeoutError ? new RunTimedOut(deps.timeoutMs) : signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      deps.active.add(runId, controller);
      try {
        await deps.engine.execute(runId, { signal: controller.signal, reportId });
      } finally {
        deps.active.delete(runId, controller);
        signal.removeEventListener('abort', onAbort);
      }
    },
    logFields: ({ runId, reportId }) => ({ run_id: runId, ...(reportId ? { report_id: reportId } : {}) }),
    async onFinalFailure({ runId }, error) {
      await deps.markLost(runId, error instanceof WorkersLostError
        ? { code: 'run.worker_lost', message: 'The workers running it stopped (crashed or were killed) too many times in a row' }
        : { code: 'run.internal_error', message: 'The run could not be carried out because of a fault in Herald (its store or Redis); the operator finds the details in the worker\'s log' });
    },
  };
}
