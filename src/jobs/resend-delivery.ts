/**
 * The resend job: sends one queued delivery attempt again (POST …/attempts/{id}/retry,
 * POST /channels/{id}/retry-failed). Its retries are for the service's own faults and lost
 * workers (the send's own transient failures are retried inside the attempt); when it fails for
 * good the attempt ends failed, never queued or sending forever.
 */
import { isUuid } from '../core/ids.js';
import type { ResendQueue } from '../domain/deliveries/retry-service.js';
import type { Enqueue, JobSpec, JobType } from './catalog.js';

export interface ResendPayload {
  attemptId: string;
  runId: string;
}

export const resendJobSpec: JobSpec<ResendPayload> = {
  name: 'resend-delivery',
  queue: 'runs',
  attempts: 3,
  backoffMs: 5_000,
  timeoutMs: 10 * 60_000,
  parse(data) {
    const { attemptId, runId } = (data ?? {}) as { attemptId?: unknown; runId?: unknown };
    if (typeof attemptId !== 'string' || !isUuid(attemptId)) throw new Error('attemptId must be a UUID');
    if (typeof runId !== 'string' || !isUuid(runId)) throw new Error('runId must be a UUID');
    return { attemptId, runId };
  },
};

/** Each resend is its own job (an attempt can be resent again later): the id names the attempt and the moment. */
export function createResendQueue(enqueue: Enqueue, now: () => Date): ResendQueue {
  return { enqueue: (attemptId, runId) => enqueue(resendJobSpec, { attemptId, runId }, { jobId: `resend-${attemptId}-${now().getTime()}` }) };
}

export function resendDeliveryJob(deps: {
  resend(attemptId: string, signal: AbortSignal): Promise<void>;
  giveUp(attemptId: string, error: Error): Promise<void>;
}): JobType<ResendPayload> {
  return {
    ...resendJobSpec,
    handle: ({ attemptId }, { signal }) => deps.resend(attemptId, signal),
    logFields: ({ attemptId, runId }) => ({ attempt_id: attemptId, run_id: runId }),
    onFinalFailure: ({ attemptId }, error) => deps.giveUp(attemptId, error),
  };
}
