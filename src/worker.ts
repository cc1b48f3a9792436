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
      // Finish active jobs; past the time limit, hand them back (they become stalled and are retried).
      const graceful = w.close().then(() => 'closed' as const);
      const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), timeoutMs); });
      if ((await Promise.race([graceful, late])) === 'late') await w.close(true);
      clearTimeout(timer);
      deps.logger.info('worker stopped');
    },
  };
}
