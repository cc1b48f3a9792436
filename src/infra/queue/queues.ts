/**
 * BullMQ on Redis. Queue names are fixed; SVC_QUEUE_PREFIX separates installations (and tests)
 * that share one Redis.
 */
import { Queue } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';

export const QUEUE_NAMES = { runs: 'runs' } as const;

/**
 * A connection for BullMQ. Workers need maxRetriesPerRequest null so that a restarted Redis is
 * waited for instead of failing their blocking calls.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false, ...options });
}

export function createRunsQueue(connection: Redis, prefix: string): Queue {
  return new Queue(QUEUE_NAMES.runs, {
    connection,
    prefix,
    defaultJobOptions: { removeOnComplete: { age: 24 * 3600, count: 10_000 }, removeOnFail: { age: 7 * 24 * 3600 } },
  });
}

/** Runs waiting for a worker: the same number on every instance, read from Redis. */
export async function pendingJobs(queue: Queue): Promise<number> {
  const counts = await queue.getJobCounts('waiting', 'prioritized');
  return (counts.waiting ?? 0) + (counts.prioritized ?? 0);
}
