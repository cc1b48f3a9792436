/**
 * The shared factory of every process kind: the store and its repositories, Redis, the secret
 * box, the event outbox, the clock, queues, metrics, the plugin registry and the artifact store.
 * Made once per process; createServices (src/main/services.ts) builds the domain services from
 * it, and each role (src/main/app.ts, src/main/worker-jobs.ts, src/main/scheduler-tasks.ts) takes
 * the slice of both that it uses.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Settings } from '../infra/config/settings.js';
import type { Logger } from '../infra/log/logger.js';
import { systemClock, type Clock } from '../core/clock.js';
import { createDb, missingLimits, type Db, type Sql } from '../infra/db/client.js';
import { createEnqueue, createQueue, createRedis, pendingJobs } from '../infra/queue/queues.js';
import { QUEUE_NAMES, type Enqueue, type QueueName } from '../jobs/catalog.js';
import { createMetrics, type Metrics } from '../infra/metrics/metrics.js';
import { createSecretBox, type SecretBox } from '../infra/crypto/secret-box.js';
import { createEventBus } from '../infra/events/event-bus.js';
import { createRelay } from '../infra/events/relay.js';
import { createRepositories, type Repositories } from './repositories.js';
import { createEventFeed, type EventFeed } from '../domain/events/feed.js';
import type { EventHistory } from '../domain/events/ports.js';
import type { ChangeEvent } from '../domain/events/model.js';
import type { UnitOfWork } from '../domain/unit-of-work/ports.js';
import { createUnitOfWork, txReposOf } from '../infra/db/unit-of-work.js';
import { rateLimitedLog } from '../infra/log/rate-limited-log.js';
import { packageVersion } from '../infra/paths.js';
import { createConnectorPools, type ConnectorPools } from '../domain/connections/pools.js';
import type { Connector } from '../domain/plugins/connector.js';
import type { ChannelPlugin, OutboundHttp } from '../domain/plugins/channel.js';
import { createOutboundHttp } from '../infra/outbound/http.js';
import type { AiPlugin } from '../domain/plugins/ai.js';
import type { PluginRegistry } from '../domain/plugins/plugin.js';
import type { PasswordHasher } from '../domain/identity/passwords.js';
import { builtInPlugins, createPluginRegistry } from '../plugins/registry.js';
import type { ArtifactStore } from '../domain/artifacts/ports.js';
import { createLocalArtifactStore } from '../infra/artifacts/local-store.js';
import { createS3ArtifactStore } from '../infra/artifacts/s3-store.js';
import { withInlineResults } from '../infra/artifacts/inline-results.js';
import path from 'node:path';
import { setMaxListeners } from 'node:events';

export interface Container {
  settings: Settings;
  logger: Logger;
  clock: Clock;
  sql: Sql;
  db: Db;
  /** Fail-fast Redis for request paths (rate limits, enqueueing, publishing). */
  redis: Redis;
  secretBox: SecretBox;
  /**
   * Where services publish change events (each becomes an outbox row, numbered and relayed to
   * every process) and where a process listens to them (in order, once, from the feed).
   */
  events: {
    publish(events: readonly ChangeEvent[]): Promise<void>;
    subscribe(listener: (event: { type: string; data: Record<string, unknown> }) => void): Promise<() => Promise<void>>;
  };
  /** One transaction and every repository bound to it: a change, its audit record and its events commit together. */
  uow: UnitOfWork;
  /** The process's ordered feed of numbered events, and the store's history of them. */
  feed: EventFeed;
  eventHistory: EventHistory;
  /** Every repository bound to the store, made once (changes go through `uow`). */
  repos: Repositories;
  identity: Repositories['identity'];
  queues: Record<QueueName, Queue>;
  enqueue: Enqueue;
  metrics: Metrics;
  /** Logs a recurring connection problem at most once per 30 s per source. */
  connectionProblem: (source: string, message: string, meta: Record<string, unknown>) => void;
  /** The installed plugins (src/plugins/registry.ts). */
  plugins: PluginRegistry<Connector, ChannelPlugin, AiPlugin>;
  /** One pooled connector session per saved connection, closed with the container. */
  pools: ConnectorPools;
  /** Where run results are stored (local files under SVC_DATA_DIR, or a bucket with SVC_STORAGE_S3). */
  artifacts: ArtifactStore;
  /** Which backend holds them, and where (GET /system/storage). */
  artifactsLocation: { backend: 'local' | 's3'; location: string };
  /** Guarded outbound HTTP for channels (SVC_OUTBOUND_ALLOW names the exceptions). */
  channelHttp: OutboundHttp;
  version: string;
  startedAt: Date;
  /** Set only by tests; the API uses bcrypt at SVC_BCRYPT_COST otherwise. */
  passwordHasher: PasswordHasher | undefined;
  /** Aborted when the process begins to drain: open event streams end, long work stops. */
  shutdownSignal: AbortSignal;
  /** Begins the drain (aborts shutdownSignal); close() follows once the roles have stopped. */
  drain(): void;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** Tests move time with a manual clock; the system clock otherwise. */
  clock?: Clock;
  /** The built-in plugins (src/plugins/registry.ts) unless given. */
  plugins?: PluginRegistry<Connector, ChannelPlugin, AiPlugin>;
  /** bcrypt at SVC_BCRYPT_COST unless given (tests that do not check the cost hash cheaper). */
  passwordHasher?: PasswordHasher;
  /**
   * Check, once, that the store applies the limits asked of its connections and that the relay's
   * LISTEN hears the store's notifications, and warn when not (a pooler in the way): what a
   * long-running process does (runtime.ts), not a one-shot command.
   */
  storeChecks?: boolean;
}

/** Pooled connections per saved connection, and how long a connection attempt may take. */
export const CONNECTOR_LIMITS = { poolSize: 5, connectTimeoutMs: 10_000 };

/**
 * The pool of one saved connection in this process: SVC_CONNECTOR_POOL_SIZE, or as many as the
 * worker runs at once (at least 5), so that a worker at concurrency N never makes its own runs
 * wait for a connection.
 */
export function connectorLimits(settings: Pick<Settings, 'connectorPoolSize' | 'workerConcurrency'>) {
  const poolSize = settings.connectorPoolSize > 0 ? settings.connectorPoolSize : Math.max(CONNECTOR_LIMITS.poolSize, settings.workerConcurrency);
  return { ...CONNECTOR_LIMITS, poolSize };
}

/**
 * Connections of a worker's lane for its hot single statements. Measured with
 * scripts/bench/deliveries.ts: with them on the pool of 10, each went out in a write of its own.
 */
const HOT_LANE_CONNECTIONS = 2;

export function createContainer(settings: Settings, logger: Logger, options: ContainerOptions = {}): Container {
  const clock = options.clock ?? systemClock;
  const applicationName = `herald-${settings.roles.join('+')}`;
  const limits = { statementTimeoutMs: settings.storeTimeoutSeconds * 1000, lockTimeoutMs: settings.storeLockSeconds * 1000 };
  const { sql, db } = createDb(settings.databaseUrl, { applicationName, ...limits, prepare: settings.databasePrepare });
  // What needs a session of its own (LISTEN) goes to SVC_DATABASE_DIRECT_URL when it names
  // another server than the store's URL (a pooler in transaction mode in front of the store).
  const direct = settings.databaseDirectUrl !== settings.databaseUrl
    ? createDb(settings.databaseDirectUrl, { max: 1, applicationName: `${applicationName}-listen`, prepare: settings.databasePrepare }).sql
    : undefined;
  if (options.storeChecks) void missingLimits(sql, limits).then((missing) => {
    if (missing.length === 0) return;
    logger.warn('the store does not apply the limits Herald asked its connections for (a pooler such as PgBouncer drops start-up parameters): set them on the role or database, see the README (PostgreSQL through PgBouncer)', {
      setting: 'SVC_DATABASE_URL', limits: missing.map((m) => `${m.name}: asked ${m.want}, applied ${m.got}`),
      fix: missing.map((m) => `ALTER ROLE <herald's role> SET ${m.name} = '${m.want}';`).join(' '),
    });
  }, () => undefined);
  // A worker's hot single statements (a run's claim, hand-over and end; a delivery's take and
  // end) on two connections of their own, where postgres.js pipelines them: one socket write
  // carries several, where the pool hands each its own idle connection (README: Deliveries).
  const laneOf = (name: string) => createDb(settings.databaseUrl, {
    max: HOT_LANE_CONNECTIONS, applicationName: `${applicationName}-${name}`, ...limits, prepare: settings.databasePrepare,
  }).sql;
  const lane = settings.roles.includes('worker') ? laneOf('lane') : undefined;
  // The API's versions and row stamps (one lean statement per read that answers by them) on two
  // connections of their own likewise: on the pool of 10 a kept answer cost 0.35 writes to the
  // store, 0.14 here (strace, scripts/bench/api-list.ts). Apart from the worker's lane, so that a
  // read never waits behind a run's end in a process with both roles. Only with named prepared
  // statements: without them (SVC_DATABASE_PREPARE=false) postgres.js sends a statement with
  // parameters in two round trips and pipelines none, so two connections would run two at a time
  // where the pool runs ten (a review measured 40 statements of 20 ms: 430 ms against 87).
  const reads = settings.roles.includes('api') && settings.databasePrepare ? laneOf('reads') : undefined;
  const repos = createRepositories(sql, db, lane, reads);
  const connectionProblem = rateLimitedLog(logger, 'warn');
  const redis = createRedis(settings.redisUrl, 'client');
  redis.on('error', (err) => connectionProblem('redis', 'redis connection problem', { err }));
  const queues = Object.fromEntries((Object.keys(QUEUE_NAMES) as QueueName[])
    .map((name) => [name, createQueue(redis, settings.queuePrefix, QUEUE_NAMES[name])])) as Record<QueueName, Queue>;
  for (const [name, queue] of Object.entries(queues)) {
    // Without a listener BullMQ prints connection errors to the console, past the logger's redaction.
    queue.on('error', (err) => connectionProblem(`queue:${name}`, 'queue connection problem', { queue: name, err }));
  }
  const metrics = createMetrics(packageVersion, {
    queuePending: () => pendingJobs(queues.runs),
    // From the shared store, so that every instance reports the same value.
    storageBytes: async () => (await repos.storage.usage()).bytes,
  }, (err) => logger.warn('a metric could not be read; it keeps its last value', { err }));
  const bus = createEventBus({
    publisher: redis,
    prefix: settings.queuePrefix,
    connectSubscriber: () => {
      const s = createRedis(settings.redisUrl, 'worker');
      s.on('error', (err) => connectionProblem('redis-subscriber', 'redis connection problem', { err }));
      return s;
    },
    onError: (err) => logger.warn('an event could not be read', { err }),
  });
  const eventLog = repos.events;
  const hearing = (heard: boolean, waitedMs: number): void => {
    const setting = direct ? 'SVC_DATABASE_DIRECT_URL' : 'SVC_DATABASE_URL';
    if (heard) { logger.debug('the store\'s notifications arrive on the LISTEN connection', { setting }); return; }
    logger.warn(
      `the store's notifications do not arrive: a test NOTIFY was not heard on the LISTEN connection within ${waitedMs / 1000} s. `
      + `${direct ? 'SVC_DATABASE_DIRECT_URL' : 'SVC_DATABASE_URL (SVC_DATABASE_DIRECT_URL is not set)'} likely goes through a pooler in transaction mode (PgBouncer); `
      + 'set SVC_DATABASE_DIRECT_URL to a direct connection to PostgreSQL. Until then the events the relay numbers reach the event streams by its poll, up to 2 s late',
      { setting },
    );
  };
  const relay = createRelay({
    sql, log: eventLog, ...(direct ? { listenSql: direct } : {}),
    ...(options.storeChecks ? { onHearing: hearing } : {}),
    // This process's listeners get them at once; the others through Redis (one message on the
    // bus's one connection, in seq order).
    publish: async (rows) => {
      feed.offer(rows);
      await bus.publishAll(rows);
    },
    onError: (err) => connectionProblem('event-relay', 'events could not be relayed now; they go out once the store and Redis answer', { err }),
  });
  const feed = createEventFeed({
    bus, history: eventLog,
    onError: (err) => connectionProblem('event-feed', 'events could not be read from the store now; they come once it answers', { err }),
  });
  void relay.start();
  const { outbox } = repos;
  const store = createUnitOfWork(db, txReposOf, (numbered, wrote) => {
    // Numbered in the transaction: published now, with no relay pass between the commit and the
    // streams. Left unnumbered (the lock was taken): this process's relay passes at once rather
    // than when the store's notification comes back (3 ms off the p50 from commit to a stream).
    if (numbered.length > 0) relay.publishNumbered(numbered);
    else if (wrote) relay.wake();
  });
  const uow: UnitOfWork = store;
  const events: Container['events'] = {
    // A change's own transaction writes its events where it has moved to the unit of work; here
    // the row follows the commit (still in the store, so a Redis outage delays it, never loses it).
    async publish(list) {
      await outbox.add(list);
      relay.wake();
    },
    async subscribe(listener) {
      const { unsubscribe } = await feed.subscribe((e) => listener({ type: e.type, data: e.data }));
      return unsubscribe;
    },
  };
  const secretBox = createSecretBox(settings.keys);
  const plugins = options.plugins ?? createPluginRegistry(builtInPlugins);
  const pools = createConnectorPools({ plugins, secrets: secretBox, limits: connectorLimits(settings) });
  const shutdown = new AbortController();
  // Every open event stream listens for the drain: thousands of them are normal, not a leak.
  setMaxListeners(0, shutdown.signal);
  const channelHttp = createOutboundHttp({ allow: settings.outboundAllow, timeoutMs: 30_000 });
  const bucket = settings.storageS3 ? createS3ArtifactStore(settings.storageS3) : undefined;
  // Small results stay in the store's row (run_results), the rest in the files or the bucket.
  const artifacts = withInlineResults(bucket ?? createLocalArtifactStore(settings.dataDir), repos.storage);
  const artifactsLocation = bucket
    ? { backend: 's3' as const, location: bucket.location }
    : { backend: 'local' as const, location: path.join(settings.dataDir, 'results') };
  return {
    settings,
    logger,
    clock,
    sql,
    db,
    redis,
    secretBox,
    events,
    feed,
    eventHistory: eventLog,
    uow,
    repos,
    identity: repos.identity,
    queues,
    enqueue: createEnqueue(queues),
    metrics,
    connectionProblem,
    plugins,
    pools,
    artifacts,
    artifactsLocation,
    channelHttp,
    version: packageVersion,
    startedAt: clock.now(),
    passwordHasher: options.passwordHasher,
    shutdownSignal: shutdown.signal,
    drain: () => shutdown.abort(),
    async close() {
      shutdown.abort();
      await pools.closeAll();
      channelHttp.close();
      bucket?.close();
      await relay.stop();
      await feed.close();
      await bus.close();
      await Promise.all(Object.values(queues).map((q) => q.close()));
      redis.disconnect();
      await Promise.all([sql.end({ timeout: 5 }), direct?.end({ timeout: 5 }), lane?.end({ timeout: 5 }), reads?.end({ timeout: 5 })]);
    },
  };
}
