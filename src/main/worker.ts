/**
 * Worker composition root: consumes every queue of the job catalog (and the runs queue). Each job
 * runs under an abort signal: past its type's time limit the signal is aborted and the attempt
 * fails with a JobTimeoutError (retried per its attempts); a DomainError or a malformed payload
 * fails the job for good. Closing waits for active jobs; past the shutdown deadline their signals
 * are aborted and they are handed back: a job cut off by a crash or a late stop is given to
 * another worker by BullMQ's stalled-job check once its lock expires (up to MAX_STALLED times, so
 * a few rolling deploys or crashes in a row lose nothing).
 */
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobDeferred, JobTimeoutError, QUEUE_NAMES, WorkersLostError, type JobCatalog, type QueueName } from '../jobs/catalog.js';
import { DomainError } from '../core/errors.js';
import { MAX_RUN_STARTS } from '../domain/runs/model.js';
import type { Logger } from '../infra/log/logger.js';
import { rateLimitedLog } from '../infra/log/rate-limited-log.js';
import { HeraldRedis } from '../infra/queue/queues.js';

/**
 * How often a job may be cut off (crashed workers) and handed to another before it counts as
 * failed: a run is started at most MAX_RUN_STARTS times (the first, then once per lost worker
 * but the last).
 */
const MAX_STALLED = MAX_RUN_STARTS - 1;
/** The abort reason of the signals of jobs still running at the shutdown deadline. */
const SHUTDOWN = 'the worker is shutting down';

/**
 * A job cut off by the shutdown settles neither way, so BullMQ records nothing: it stays active
 * under its lock until the lock expires and another worker takes it (this process exits).
 */
const handBack = () => new Promise<never>(() => undefined);

/**
 * How a job failed for good, as its type's onFinalFailure is told; undefined while it will be
 * tried again. A job whose workers were lost more than `maxStalled` times is failed by BullMQ
 * itself: its stalled-job check counts each loss on the job (stalledCounter) and marks it, and
 * the next worker to fetch it fails it with an UnrecoverableError without running it. The counter
 * (not the message) tells that from a handler's own unrecoverable failure, which comes only while
 * the counter is within the limit. That answers a WorkersLostError; any other error is final when
 * it is unrecoverable or the job's attempts are spent.
 */
/** How long a stopping worker waits for cancelled handlers to record their state. */
const HANDBACK_GRACE_MS = 3_000;

export function finalFailureOf(job: Pick<Job, 'name' | 'stalledCounter' | 'attemptsMade' | 'opts'>, err: Error, maxStalled = MAX_STALLED): Error | undefined {
  const unrecoverable = err instanceof UnrecoverableError || err.name === 'UnrecoverableError';
  if (unrecoverable && job.stalledCounter > maxStalled) return new WorkersLostError(job.name, job.stalledCounter, err);
  if (unrecoverable || job.attemptsMade >= (job.opts.attempts ?? 1)) return err;
  return undefined;
}

function asError(reason: unknown, jobName: string): Error {
  return reason instanceof Error ? reason : new Error(`${jobName} was cancelled: ${String(reason)}`);
}

export interface WorkerRole {
  start(): void;
  stop(timeoutMs: number): Promise<void>;
}

export function createWorker(deps: {
  connection: Redis; prefix: string; catalog: JobCatalog; logger: Logger;
  /** Jobs of each queue this process carries at once (default 4). */
  concurrency?: Partial<Record<QueueName, number>>;
  /** How long a job's lock lives without renewal; a crashed worker's job is handed back after it. */
  lockDurationMs?: number;
  /** How often BullMQ looks for jobs whose lock expired (default: the lock duration; tests shorten it). */
  stalledIntervalMs?: number;
}): WorkerRole {
  let workers: Worker[] = [];
  const workerError = rateLimitedLog(deps.logger, 'error');
  /** Jobs in progress here. */
  let active = 0;
  let onIdle: (() => void) | undefined;
  /** Set when the stop cancels the active jobs: none starts after it. */
  let cutOff = false;
  /** Handlers' work still going on (a cancelled one records what it did before it settles). */
  const working = new Set<Promise<unknown>>();
  /** Resolves once no job is in progress here. */
  const idle = () => new Promise<void>((resolve) => {
    if (active === 0) resolve();
    else onIdle = resolve;
  });
  // Three parameters: BullMQ passes its per-job abort signal only to a processor that declares it.
  const process = async (job: Job, token: string | undefined, cancel: AbortSignal | undefined) => {
    active += 1;
    try {
      await runJob(job, token, cancel);
    } finally {
      active -= 1;
      if (active === 0) onIdle?.();
    }
  };
  const runJob = async (job: Job, token: string | undefined, cancel: AbortSignal | undefined) => {
    // A job that a fetch under way brought after the active ones were cancelled is not started:
    // it goes back as they do.
    if (cutOff) return handBack();
    const type = deps.catalog.get(job.name);
    if (!type) throw new UnrecoverableError(`unknown job type ${job.name}`);
    let payload: unknown;
    try {
      payload = type.parse(job.data);
    } catch (err) {
      throw new UnrecoverableError(`${job.name}: malformed payload (${(err as Error).message})`);
    }
    // The handler's signal: aborted by BullMQ's (cancelAllJobs at shutdown) or by the time limit.
    const controller = new AbortController();
    const { signal } = controller;
    const onCancel = () => controller.abort(cancel?.reason);
    if (cancel?.aborted) onCancel();
    else cancel?.addEventListener('abort', onCancel, { once: true });
    const timer = setTimeout(() => controller.abort(new JobTimeoutError(job.name, type.timeoutMs)), type.timeoutMs);
    const aborted = new Promise<never>((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(asError(signal.reason, job.name)), { once: true });
    });
    const work = Promise.resolve().then(() => type.handle(payload, {
      signal, job: { id: job.id, name: job.name, attemptsMade: job.attemptsMade },
    }));
    // Whichever loses the race settles unobserved.
    const settled = work.catch(() => undefined);
    working.add(settled);
    void settled.then(() => working.delete(settled));
    aborted.catch(() => undefined);
    try {
      // A handler that ignores its signal still fails at its time limit (its work then goes on
      // unobserved); one that honours it stops.
      await Promise.race([work, aborted]);
    } catch (err) {
      if (signal.reason === SHUTDOWN) return handBack();
      if (err instanceof JobDeferred) {
        // Back to the queue, delayed, without counting as a failed attempt (BullMQ's DelayedError).
        await job.moveToDelayed(Date.now() + err.delayMs, token);
        throw new DelayedError();
      }
      if (err instanceof DomainError) throw new UnrecoverableError(`${err.code}: ${err.message}`);
      throw err;
    } finally {
      clearTimeout(timer);
      cancel?.removeEventListener('abort', onCancel);
    }
  };
  /** The job type's own log fields (a run's run_id and report_id); none when its data does not parse. */
  const fieldsOf = (job: Job): Record<string, unknown> => {
    const type = deps.catalog.get(job.name);
    try {
      return type?.logFields?.(type.parse(job.data)) ?? {};
    } catch {
      return {};
    }
  };
  /** A job that will not be tried again: its type records that (a run ends failed, say). */
  const finalFailure = async (job: Job, err: Error) => {
    const type = deps.catalog.get(job.name);
    const final = finalFailureOf(job, err);
    if (!type?.onFinalFailure || !final) return;
    try {
      await type.onFinalFailure(type.parse(job.data), final, job.id);
    } catch (failure) {
      deps.logger.error('a failed job could not be recorded as failed', { job_id: job.id, job_name: job.name, ...fieldsOf(job), err: failure });
    }
  };
  return {
    start() {
      const queues = new Set<QueueName>(['runs', ...[...deps.catalog.values()].map((t) => t.queue)]);
      workers = [...queues].map((queue) => {
        const worker = new Worker(QUEUE_NAMES[queue], process, {
          connection: deps.connection,
          prefix: deps.prefix,
          concurrency: deps.concurrency?.[queue] ?? 4,
          lockDuration: deps.lockDurationMs ?? 30_000,
          stalledInterval: deps.stalledIntervalMs ?? deps.lockDurationMs ?? 30_000,
          maxStalledCount: MAX_STALLED,
          autorun: true,
        });
        worker.on('failed', (job, err) => {
          deps.logger.warn('job failed', { job_id: job?.id, job_name: job?.name, attempts_made: job?.attemptsMade, ...(job ? fieldsOf(job) : {}), err });
          if (job) void finalFailure(job, err);
        });
        worker.on('error', (err) => workerError(`worker:${queue}`, 'worker error', { queue, err }));
        return worker;
      });
      deps.logger.info('worker started', { queues: [...queues] });
    },
    async stop(timeoutMs) {
      if (workers.length === 0) return;
      let timer: NodeJS.Timeout | undefined;
      // Take no new jobs and wait for the active ones; past the time limit, hand them back and
      // close. (A graceful close() cannot be turned into a forced one later, hence pause first;
      // pause(true) does not wait itself: BullMQ's waiting pause would reconnect after our close.)
      await Promise.all(workers.map((w) => w.pause(true)));
      const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), timeoutMs); });
      let outcome = await Promise.race([idle().then(() => 'finished' as const), late]);
      if (outcome === 'finished') {
        // A fetch already under way when we paused may still bring a job, which a graceful
        // close waits for: the time limit bounds that too.
        outcome = await Promise.race([Promise.all(workers.map((w) => w.close(false))).then(() => 'finished' as const), late]);
      }
      clearTimeout(timer);
      const unfinished = active;
      if (outcome === 'late') {
        // Stop the unfinished jobs' work (a handler honours its signal), then hand them back: a
        // forced close (or, once a graceful one has begun, dropping the connections) leaves them
        // active; their locks expire and BullMQ's stalled-job check gives them to another worker.
        // (Before the close: closing forgets the jobs' signals.)
        cutOff = true;
        for (const w of workers) w.cancelAllJobs(SHUTDOWN);
        // A handler that honours its signal records what it did (the sends a delivery made) on
        // its way out: give that a moment before the store closes behind it.
        let grace: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all([...working]), new Promise<void>((resolve) => { grace = setTimeout(resolve, HANDBACK_GRACE_MS); })]);
        clearTimeout(grace);
        // Bounded as well: a stop ends even if Redis never comes back. A graceful close already
        // under way ends when its connections are dropped or (Redis away) once they are ended
        // below, whichever comes first.
        const closing = Promise.all(workers.map((w) => (w.closing ? Promise.race([w.closing, w.disconnect()]) : w.close(true)))).then(() => true);
        const within = async () => {
          let left: NodeJS.Timeout | undefined;
          const done = await Promise.race([closing, new Promise<false>((resolve) => { left = setTimeout(() => resolve(false), HANDBACK_GRACE_MS); })]);
          clearTimeout(left);
          return done;
        };
        if (!(await within())) {
          // BullMQ waits for a command on one of the connections it made for the workers (Redis
          // is away): end them, so that command fails and the close goes on (timers and all).
          if (deps.connection instanceof HeraldRedis) deps.connection.endCopies();
          if (!(await within())) deps.logger.warn('worker connections did not close in time; stopping without them');
        }
      }
      deps.logger.info('worker stopped', { handed_back: outcome === 'late' ? unfinished : 0 });
    },
  };
}
