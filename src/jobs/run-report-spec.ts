/**
 * The run job's spec: what the API and the scheduler need to enqueue a run. The worker's job
 * type (src/jobs/run-report.ts) adds the handler and the time limit from SVC_RUN_TIMEOUT_SECONDS.
 * The job id is the run id: BullMQ adds nothing for an id it already holds, and a run's job can
 * be found (and re-enqueued by the sweep) by the run's id.
 */
import type { RunJobPayload } from '../domain/runs/model.js';
import type { RunQueue } from '../domain/runs/model.js';
import { isUuid } from '../core/ids.js';
import type { Enqueue, JobSpec } from './catalog.js';

export const RUN_JOB_NAME = 'run-report';

export const runJobSpec: JobSpec<RunJobPayload> = {
  name: RUN_JOB_NAME,
  queue: 'runs',
  // Failures of the run itself (SQL errors, timeouts) end the run and the job; these attempts are
  // for the service's own faults (store or Redis away) and for workers lost mid-run.
  attempts: 3,
  backoffMs: 5_000,
  timeoutMs: 900_000,
  parse(data) {
    const runId = (data as { runId?: unknown } | null)?.runId;
    if (typeof runId !== 'string' || !isUuid(runId)) throw new Error('runId must be a UUID');
    const reportId = (data as { reportId?: unknown }).reportId;
    return typeof reportId === 'string' ? { runId, reportId } : { runId };
  },
};

export function createRunQueue(enqueue: Enqueue): RunQueue {
  return { enqueue: (runId, reportId) => enqueue(runJobSpec, { runId, reportId }, { jobId: runId }) };
}
