/**
 * The catalog of job types: each is data (name, queue, attempts, backoff, timeout, payload
 * parser) plus a small handler that calls the domain. The API enqueues by spec; workers consume
 * with the full type. A feature adds its job types under src/jobs/.
 *
 * This layer knows no queue technology: src/infra/queue makes the queues and the enqueue
 * function, src/main/worker.ts runs the handlers.
 */

/**
 * The queues a job can go to, declared here only: the composition root makes one Redis queue for
 * each (src/infra/queue/queues.ts, under SVC_QUEUE_PREFIX) and the worker consumes them.
 */
export const QUEUE_NAMES = { runs: 'runs', mail: 'mail', deliveries: 'deliveries' } as const;
export type QueueName = keyof typeof QUEUE_NAMES;

export interface JobSpec<P> {
  name: string;
  queue: QueueName;
  /** Runs in all, the first included; a DomainError or a malformed payload stops them early. */
  attempts: number;
  /** First retry delay; later ones double. */
  backoffMs: number;
  /** Past this, the worker aborts the handler's signal and the attempt fails with a JobTimeoutError. */
  timeoutMs: number;
  /** Throws on data that can never be handled (the job then fails without retries). */
  parse(data: unknown): P;
}

/** What a handler knows about the run it is in. */
export interface JobContext {
  /**
   * Aborted when the job's time limit passes (reason: a JobTimeoutError) or when the worker shuts
   * down and hands the job back. A handler passes it on to whatever waits (fetch, queries,
   * timers) or checks it between steps: once it is aborted, the handler must do nothing more.
   */
  signal: AbortSignal;
  job: { id: string | undefined; name: string; /** Attempts that ended before this one. */ attemptsMade: number };
}

export interface JobType<P = unknown> extends JobSpec<P> {
  handle(payload: P, context: JobContext): Promise<void>;
  /**
   * Called once when the job has failed for good: its attempts are spent, it failed
   * unrecoverably, or its workers were lost more often than allowed (then `error` is a
   * WorkersLostError). The job's own records must not stay "in progress" after this.
   */
  onFinalFailure?(payload: P, error: Error, jobId?: string): Promise<void>;
  /** Fields that the worker's own log lines about this job carry (a run's run_id and report_id). */
  logFields?(payload: P): Record<string, unknown>;
}

export type JobCatalog = ReadonlyMap<string, JobType>;

export function jobCatalog(types: JobType[]): JobCatalog {
  return new Map(types.map((t) => [t.name, t]));
}

export type Enqueue = <P>(spec: JobSpec<P>, payload: P, options?: { jobId?: string }) => Promise<void>;

/**
 * Thrown by a handler that cannot go on now (a delivery whose channel is busy): the job goes back
 * to the queue, delayed by `delayMs`, holding no worker, without counting as a failed attempt.
 */
export class JobDeferred extends Error {
  constructor(readonly delayMs: number) {
    super(`deferred by ${delayMs} ms`);
    this.name = 'JobDeferred';
  }
}

/** The reason a job's signal is aborted with when its time limit passes; the attempt fails with it. */
export class JobTimeoutError extends Error {
  constructor(readonly jobName: string, readonly timeoutMs: number) {
    super(`${jobName} took longer than its time limit of ${timeoutMs} ms and was stopped`);
    this.name = 'JobTimeoutError';
  }
}

/**
 * What onFinalFailure receives when the job failed for good because the workers running it were
 * lost (crashed, killed, cut off) more often than allowed: each time it was handed to another
 * worker, then it was failed without running again.
 */
export class WorkersLostError extends Error {
  constructor(readonly jobName: string, readonly losses: number, override readonly cause?: Error) {
    super(`${jobName}: its workers were lost ${losses} times, more than allowed`);
    this.name = 'WorkersLostError';
  }
}
