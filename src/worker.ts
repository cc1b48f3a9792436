/**
 * Worker composition root: consumes the runs queue with the job catalog. Closing waits for
 * active jobs; a job cut off by a crash is handed back by BullMQ's stalled-job check.
 */
import { UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE_NAMES } from './infra/queue/queues.js';
import type { JobCatalog } from './infra/queue/job-catalog.js';
import type { Logger } from './infra/log/logger.js';

export interface WorkerRole {
  start(): void;
  stop(timeoutMs: number): Promise<void>;
}

export function createWorker(deps: {
  connection: Redis; prefix: string; catalog: JobCatalog; logger: Logger; concurrency?: number;
  /** How long a job's lock lives without renewal; a crashed worker's job is handed back after it. */
  lockDurationMs?: number;
}): WorkerRole {
  let worker: Worker | undefined;
  return {
    start() {
      worker = new Worker(QUEUE_NAMES.runs, async (job) => {
        const type = deps.catalog.get(job.name);
        if (!type) throw new UnrecoverableError(`unknown job type ${job.name}`);
        await type.handle(type.parse(job.data), job);
      }, {
        connection: deps.connection,
        prefix: deps.prefix,
        concurrency: deps.concurrency ?? 4,
        lockDuration: deps.lockDurationMs ?? 30_000,
        stalledInterval: deps.lockDurationMs ?? 30_000,
        autorun: true,
      });
      worker.on('failed', (job, err) => deps.logger.warn('job failed', { job_id: job?.id, job_name: job?.name, err }));
      worker.on('error', (err) => deps.logger.error('worker error', { err }));
      deps.logger.info('worker started', { queue: QUEUE_NAMES.runs });
    },
    async stop(timeoutMs) {
      if (!worker) return;
      const w = worker;
      let timer: NodeJS.Timeout | undefined;
      // Take no new jobs and wait for the active ones; past the time limit, close anyway: the
      // unfinished jobs' locks expire and another worker takes them (BullMQ's stalled-job check).
      // (A graceful close() cannot be turned into a forced one later, hence pause first.)
      const finished = w.pause(false).then(() => 'finished' as const);
      const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), timeoutMs); });
      const outcome = await Promise.race([finished, late]);
      clearTimeout(timer);
      await w.close(outcome === 'late');
      deps.logger.info('worker stopped', { handed_back: outcome === 'late' });
    },
  };
}
