/**
 * Worker composition root: consumes every queue of the job catalog (and the runs queue). Closing
 * waits for active jobs; a job cut off by a crash or a late stop is handed to another worker by
 * BullMQ's stalled-job check once its lock expires (up to MAX_STALLED times, so a few rolling
 * deploys or crashes in a row lose nothing).
 */
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_NAMES, type QueueName } from './infra/queue/queues.js';
import type { JobCatalog } from './infra/queue/job-catalog.js';
import type { Logger } from './infra/log/logger.js';
import { rateLimitedLog } from './infra/log/rate-limited-log.js';

/** How often a job may be cut off (crashed workers) before it counts as failed. */
const MAX_STALLED = 3;

export interface WorkerRole {
  start(): void;
  stop(timeoutMs: number): Promise<void>;
}

export function createWorker(deps: {
  connection: Redis; prefix: string; catalog: JobCatalog; logger: Logger; concurrency?: number;
  /** How long a job's lock lives without renewal; a crashed worker's job is handed back after it. */
  lockDurationMs?: number;
}): WorkerRole {
  let workers: Worker[] = [];
  const workerError = rateLimitedLog(deps.logger, 'error');
  /** Jobs in progress here. */
  let active = 0;
  let onIdle: (() => void) | undefined;
  /** Resolves once no job is in progress here. */
  const idle = () => new Promise<void>((resolve) => {
    if (active === 0) resolve();
    else onIdle = resolve;
  });
  const process = async (job: Job) => {
    active += 1;
    try {
      await runJob(job);
    } finally {
      active -= 1;
      if (active === 0) onIdle?.();
    }
  };
  const runJob = async (job: Job) => {
    const type = deps.catalog.get(job.name);
    if (!type) throw new UnrecoverableError(`unknown job type ${job.name}`);
    const payload = type.parse(job.data);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${job.name} took longer than ${type.timeoutMs} ms`)), type.timeoutMs);
    });
    try {
      await Promise.race([type.handle(payload, job), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    start() {
      const queues = new Set<QueueName>(['runs', ...[...deps.catalog.values()].map((t) => t.queue)]);
      workers = [...queues].map((queue) => {
        const worker = new Worker(QUEUE_NAMES[queue], process, {
          connection: deps.connection,
          prefix: deps.prefix,
          concurrency: deps.concurrency ?? 4,
          lockDuration: deps.lockDurationMs ?? 30_000,
          stalledInterval: deps.lockDurationMs ?? 30_000,
          maxStalledCount: MAX_STALLED,
          autorun: true,
        });
        worker.on('failed', (job, err) => deps.logger.warn('job failed', {
          job_id: job?.id, job_name: job?.name, attempts_made: job?.attemptsMade, err,
        }));
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
        // A forced close (or, once a graceful one has begun, dropping the connections) leaves
        // the unfinished jobs active; their locks expire and BullMQ's stalled-job check hands
        // them to another worker.
        await Promise.all(workers.map((w) => (w.closing ? w.disconnect() : w.close(true))));
      }
      deps.logger.info('worker stopped', { handed_back: outcome === 'late' ? unfinished : 0 });
    },
  };
}
