/**
 * The catalog of job types: each is data (name, attempts, backoff, timeout) plus a small handler
 * that validates the payload and calls the domain. Issues add their job types here.
 */
import type { Job } from 'bullmq';

export interface JobType<P = unknown> {
  name: string;
  queue: 'runs';
  attempts: number;
  backoffMs: number;
  timeoutMs: number;
  parse(data: unknown): P;
  handle(payload: P, job: Job): Promise<void>;
}

export type JobCatalog = ReadonlyMap<string, JobType>;

export function jobCatalog(types: JobType[]): JobCatalog {
  return new Map(types.map((t) => [t.name, t]));
}
