/**
 * BullMQ on Redis. Queue names are the job catalog's (QUEUE_NAMES in src/jobs/catalog.ts);
 * SVC_QUEUE_PREFIX separates installations (and tests) that share one Redis. The catalog says
 * which job goes to which queue; this module only knows queues, so it takes a job's spec by its
 * shape.
 */
import { Queue } from 'bullmq';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { closeHandler } from 'ioredis/built/redis/event_handler.js';
import { clusterOf, redisOptionsOf } from './redis-url.js';

/**
 * ioredis's client, with one fix: disconnect() while the client waits to reconnect (status
 * `reconnecting`, no socket) clears the timer but never ends the client (redis/ioredis#1247, the
 * fix proposed upstream in redis/ioredis#2169): the status stays `reconnecting`, no `end` comes,
 * and the commands queued offline never settle. BullMQ waits for that `end` when it closes a
 * worker's blocking connection, so a worker whose blocking client was between two tries (after
 * Redis, or every server under Sentinel, was away for a while) never stopped. Here such a
 * disconnect ends the client at once, failing what it had queued with "Connection is closed".
 * duplicate() (how BullMQ makes a worker's blocking connection) keeps the fix.
 */
export class HeraldRedis extends Redis {
  override disconnect(reconnect = false): void {
    const betweenTries = !reconnect && this.status === 'reconnecting';
    super.disconnect(reconnect);
    if (betweenTries && this.status === 'reconnecting') closeHandler(this)();
  }

  /** The copies made of this client (a worker's own connections; a handful per process). */
  private readonly copies = new Set<HeraldRedis>();

  override duplicate(override?: Partial<RedisOptions>): Redis {
    const copy = new HeraldRedis({ ...this.options, ...override });
    this.copies.add(copy);
    return copy;
  }

  /**
   * Ends every copy made of this client: what a stopping worker does when BullMQ's own close
   * waits on a connection that does not come back (its commands then fail, and the close goes on).
   */
  endCopies(): void {
    for (const copy of this.copies) {
      copy.endCopies();
      copy.disconnect();
    }
  }
}

/**
 * A Redis connection.
 * - 'worker': BullMQ workers wait for a restarted Redis (maxRetriesPerRequest null) instead of
 *   failing their blocking calls.
 * - 'client': request paths (rate limits, enqueueing) fail fast while Redis is away, so a caller
 *   gets 503 unavailable within moments instead of a request that hangs.
 */
export function createRedis(url: string, kind: 'worker' | 'client', options: RedisOptions = {}): Redis {
  const common: RedisOptions = {
    maxRetriesPerRequest: kind === 'worker' ? null : 1,
    connectTimeout: 5000,
    enableReadyCheck: true,
    ...options,
  };
  const cluster = clusterOf(url);
  if (cluster) {
    // Redis Cluster (redis+cluster://): the nodes given lead to the rest; every key of this
    // installation carries one hash tag (the prefix), so multi-key scripts stay in one slot.
    // The Cluster client has the commands Herald uses under the same names (typed as one server's).
    return new Cluster(cluster.nodes, {
      redisOptions: { ...common, ...cluster.redisOptions },
      enableReadyCheck: true,
      ...(kind === 'client' ? { maxRedirections: 16 } : {}),
    }) as unknown as Redis;
  }
  const { url: server, ...sentinel } = redisOptionsOf(url);
  // Under Sentinel (redis+sentinel://), the sentinels name the primary, again after each failover.
  return server ? new HeraldRedis(server, common) : new HeraldRedis({ ...sentinel, ...common });
}

/** True for errors that mean Redis cannot be reached right now. */
export function isRedisUnavailable(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown };
  return e?.name === 'MaxRetriesPerRequestError'
    || (typeof e?.message === 'string' && /^(Connection is closed|Stream isn't writeable)/.test(e.message));
}

export function createQueue(connection: Redis, prefix: string, name: string): Queue {
  return new Queue(name, {
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

/** The part of a job's spec that enqueueing uses (src/jobs/catalog.ts JobSpec has it). */
export interface QueuedJobSpec<Q extends string> {
  name: string;
  queue: Q;
  attempts: number;
  /** First retry delay; later ones double. */
  backoffMs: number;
}

/** Adds jobs with their spec's retry policy. */
export function createEnqueue<Q extends string>(queues: Record<Q, Queue>) {
  return async (spec: QueuedJobSpec<Q>, payload: unknown, options: { jobId?: string } = {}): Promise<void> => {
    const queue: Queue | undefined = queues[spec.queue];
    if (!queue) throw new Error(`${spec.name}: there is no queue ${spec.queue}`);
    await queue.add(spec.name, payload, {
      attempts: spec.attempts,
      backoff: { type: 'exponential', delay: spec.backoffMs },
      ...(options.jobId ? { jobId: options.jobId } : {}),
    });
  };
}

/** Redis answers a ping within `timeoutMs` (readiness, the problems' snapshot). */
export async function redisAnswers(redis: Pick<Redis, 'ping'>, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), timeoutMs); });
    return await Promise.race([redis.ping().then(() => true as const), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
