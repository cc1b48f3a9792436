/**
 * The delivery job: carries one delivery attempt (its first send, an automatic retry, a person's
 * resend) on the deliveries queue (delivery-worker.ts). Its retries are for the service's own
 * faults and lost workers (the send's own transient failures are retried inside the attempt and
 * on the schedule); when it fails for good the attempt ends failed and its run settles, never
 * pending or sending forever. A busy channel defers the job (it waits on the queue, holding no
 * worker); the job's time limit ends the send delivery.timeout; a cancellation of its run stops it.
 */
import { isUuid } from '../core/ids.js';
import { DeliveryTimedOut, type DeliveryWorker } from '../domain/deliveries/delivery-worker.js';
import type { DeliveryJob } from '../domain/runs/engine-ports.js';
import { JobDeferred, JobTimeoutError, WorkersLostError, type JobSpec, type JobType } from './catalog.js';
import type { ActiveRuns } from './run-report.js';

export interface DeliverPayload {
  attemptId: string;
  runId: string;
  /** The channel, for its gate before the store is read (absent: the channel was deleted). */
  channelId?: string | undefined;
  /** The delivery, read with the attempt (absent: the delivery was removed). */
  deliveryId?: string | undefined;
}

export const deliverJobSpec: JobSpec<DeliverPayload> = {
  name: 'deliver',
  queue: 'deliveries',
  attempts: 5,
  backoffMs: 5_000,
  timeoutMs: 15 * 60_000,
  parse(data) {
    const { attemptId, runId, channelId, deliveryId } = (data ?? {}) as { attemptId?: unknown; runId?: unknown; channelId?: unknown; deliveryId?: unknown };
    if (typeof attemptId !== 'string' || !isUuid(attemptId)) throw new Error('attemptId must be a UUID');
    if (typeof runId !== 'string' || !isUuid(runId)) throw new Error('runId must be a UUID');
    if (channelId !== undefined && channelId !== null && (typeof channelId !== 'string' || !isUuid(channelId))) throw new Error('channelId must be a UUID');
    if (deliveryId !== undefined && deliveryId !== null && (typeof deliveryId !== 'string' || !isUuid(deliveryId))) throw new Error('deliveryId must be a UUID');
    return { attemptId, runId, ...(typeof channelId === 'string' ? { channelId } : {}), ...(typeof deliveryId === 'string' ? { deliveryId } : {}) };
  },
};

/** What a job knows of its attempt: the payload and its own id (the attempt names the job that may take it). */
const jobOf = (p: DeliverPayload, jobId: string | undefined): DeliveryJob =>
  ({ attemptId: p.attemptId, runId: p.runId, jobId: jobId ?? '', channelId: p.channelId ?? null, deliveryId: p.deliveryId ?? null });

export function deliverJob(deps: { worker: DeliveryWorker; active: ActiveRuns }): JobType<DeliverPayload> {
  return {
    ...deliverJobSpec,
    async handle(payload, { signal, job }) {
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal.reason instanceof JobTimeoutError ? new DeliveryTimedOut(deliverJobSpec.timeoutMs) : signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      deps.active.add(payload.runId, controller);
      try {
        const outcome = await deps.worker.deliver(jobOf(payload, job.id), controller.signal);
        if (outcome.deferMs !== undefined) throw new JobDeferred(outcome.deferMs);
      } finally {
        deps.active.delete(payload.runId, controller);
        signal.removeEventListener('abort', onAbort);
      }
    },
    logFields: ({ attemptId, runId }) => ({ attempt_id: attemptId, run_id: runId }),
    async onFinalFailure(payload, error, jobId) {
      await deps.worker.giveUp(jobOf(payload, jobId), error instanceof WorkersLostError
        ? { code: 'delivery.worker_lost', message: 'The workers sending it stopped (crashed or were killed) too many times in a row; retry the attempt' }
        : { code: 'delivery.worker_lost', message: 'The delivery could not be carried out because of a fault in Herald (its store or Redis); retry the attempt' });
    },
  };
}
