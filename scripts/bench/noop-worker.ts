/**
 * The limit for scripts/bench/runs.ts: a BullMQ worker that does nothing with its jobs, with the
 * options `herald worker` gives its runs queue (concurrency, lock duration, stalled checks), on
 * the queue named by BENCH_NOOP_QUEUE under SVC_QUEUE_PREFIX, on SVC_REDIS_URL. Run as a child
 * process (one process, as Herald's worker); prints `noop worker started` once it listens.
 */
import { Worker } from 'bullmq';
import { createRedis } from '../../src/infra/queue/queues.js';

const connection = createRedis(process.env.SVC_REDIS_URL ?? 'redis://127.0.0.1:6379', 'worker');
const worker = new Worker(process.env.BENCH_NOOP_QUEUE ?? 'noop', async () => undefined, {
  connection,
  prefix: process.env.SVC_QUEUE_PREFIX ?? 'bench',
  concurrency: Number(process.env.SVC_WORKER_CONCURRENCY ?? 10),
  lockDuration: 30_000,
  stalledInterval: 30_000,
  maxStalledCount: 2, // MAX_RUN_STARTS - 1, as src/main/worker.ts
  autorun: true,
});
worker.on('ready', () => console.log('noop worker started'));
process.once('SIGTERM', () => { void worker.close().then(() => { connection.disconnect(); process.exit(0); }); });
