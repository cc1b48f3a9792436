/**
 * The deliveries queue as the deliveries feature sees it (its DeliveryQueue port): jobs added in
 * bulk (one round trip for a run's deliveries), each with its id (BullMQ adds nothing for an id
 * it already holds) and its delay, and a job's state by id for the sweep.
 */
import type { Queue } from 'bullmq';
import type { DeliveryQueue } from '../../domain/deliveries/ports.js';
import type { QueuedJobSpec } from './queues.js';

export function createDeliveryQueue(queue: Queue, spec: QueuedJobSpec<string>): DeliveryQueue {
  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      await queue.addBulk(jobs.map((j) => ({
        name: spec.name,
        data: { attemptId: j.attemptId, runId: j.runId, ...(j.channelId ? { channelId: j.channelId } : {}), ...(j.deliveryId ? { deliveryId: j.deliveryId } : {}) },
        opts: {
          jobId: j.jobId, attempts: spec.attempts, backoff: { type: 'exponential', delay: spec.backoffMs },
          ...(j.delayMs && j.delayMs > 0 ? { delay: Math.round(j.delayMs) } : {}),
        },
      })));
    },
    async state(jobId) {
      const job = await queue.getJob(jobId);
      if (!job) return 'missing';
      const state = await job.getState();
      return (['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed'] as const).find((s) => s === state) ?? 'other';
    },
  };
}
