/**
 * The catalog of job types: each is data (name, queue, attempts, backoff, timeout, payload
 * parser) plus a small handler that calls the domain. The API enqueues by spec; workers consume
 * with the full type. Issues add their job types under src/jobs/.
 */
import type { Job, Queue } from 'bullmq';
import type { QueueName } from './queues.js';

export interface JobSpec<P> {
  name: string;
  queue: QueueName;
  attempts: number;
  /** First retry delay; later ones double. */
  backoffMs: number;
  timeoutMs: number;
  parse(data: unknown): P;
}

export interface JobType<P = unknown> extends JobSpec<P> {
  handle(payload: P, job: Job): Promise<void>;
}

export type JobCatalog = ReadonlyMap<string, JobType>;

export function jobCatalog(types: JobType[]): JobCatalog {
  return new Map(types.map((t) => [t.name, t]));
}

export type Enqueue = <P>(spec: JobSpec<P>, payload: P, options?: { jobId?: string }) => Promise<void>;

/** Adds jobs with their spec's retry policy. */
export function createEnqueue(queues: Record<QueueName, Queue>): Enqueue {
  return async (spec, payload, options = {}) => {
    await queues[spec.queue].add(spec.name, payload, {
      attempts: spec.attempts,
      backoff: { type: 'exponential', delay: spec.backoffMs },
      ...(options.jobId ? { jobId: options.jobId } : {}),
    });
  };
}
