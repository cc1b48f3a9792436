/**
 * One Herald process: settings → logger → store → Redis → the roles of SVC_ROLES, and an orderly
 * stop on SIGTERM/SIGINT (the API stops accepting and finishes in-flight requests, the scheduler
 * finishes its tick, workers finish or hand back their jobs, then connections close).
 */
import http from 'node:http';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import { SettingsError, type Settings } from './infra/config/settings.js';
import type { Logger } from './infra/log/logger.js';
import { createDb } from './infra/db/client.js';
import { createQueue, createRedis, pendingJobs } from './infra/queue/queues.js';
import { createMetrics } from './infra/metrics/metrics.js';
import { createEnqueue, jobCatalog } from './infra/queue/job-catalog.js';
import { createMailer } from './infra/mail/mailer.js';
import { passwordResetMailJob } from './jobs/password-reset-mail.js';
import { createApi, createProbeApp } from './app.js';
import { createScheduler, hourly, type SchedulerRole } from './scheduler.js';
import { purgeDeadIdentityRows } from './domain/identity/housekeeping.js';
import { createWorker, type WorkerRole } from './worker.js';
import { packageVersion } from './infra/paths.js';
import { rateLimitedLog } from './infra/log/rate-limited-log.js';

export interface RunningProcess {
  /** The HTTP address, when the api role runs. */
  url?: string;
  /** The request handler, when the api role runs (tests call it without a socket). */
  app?: Express;
  /** The probes-and-metrics handler, when SVC_PROBE_LISTEN is set, and its address. */
  probeApp?: Express;
  probeUrl?: string;
  /** The scheduler, when the scheduler role runs. */
  scheduler?: SchedulerRole;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Listen on SVC_LISTEN (default true); tests drive the app without a socket. */
  listen?: boolean;
}

type BeforeAnswer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function listenOn(
  app: Express, at: { host: string; port: number }, setting: string, before: BeforeAnswer,
): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => { before(req, res); app(req, res); });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, at, setting)));
    server.listen(at.port, at.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${host}:${address.port}` };
}

/** A listener that cannot open names the setting that chose its address. */
function listenError(err: NodeJS.ErrnoException, at: { host: string; port: number }, setting: string): Error {
  const where = `${at.host.includes(':') ? `[${at.host}]` : at.host}:${at.port}`;
  const why = err.code === 'EADDRINUSE' ? 'is already in use'
    : err.code === 'EADDRNOTAVAIL' ? 'is not an address of this machine'
      : err.code === 'EACCES' ? 'needs privileges this process lacks' : `cannot be listened on (${err.code ?? err.message})`;
  return new SettingsError(setting, `${where} ${why}`);
}

export async function startProcess(settings: Settings, logger: Logger, options: StartOptions = {}): Promise<RunningProcess> {
  const startedAt = new Date();
  const { sql, db } = createDb(settings.databaseUrl, {
    applicationName: `herald-${settings.roles.join('+')}`, statementTimeoutMs: settings.storeTimeoutSeconds * 1000,
  });
  const redis = createRedis(settings.redisUrl, 'client');
  const problem = rateLimitedLog(logger, 'warn');
  redis.on('error', (err) => problem('redis', 'redis connection problem', { err }));
  const queues = { runs: createQueue(redis, settings.queuePrefix, 'runs'), mail: createQueue(redis, settings.queuePrefix, 'mail') };
  for (const [name, queue] of Object.entries(queues)) {
    // Without a listener BullMQ prints connection errors to the console, past the logger's redaction.
    queue.on('error', (err) => problem(`queue:${name}`, 'queue connection problem', { queue: name, err }));
  }
  const enqueue = createEnqueue(queues);
  const metrics = createMetrics(packageVersion, {
    queuePending: () => pendingJobs(queues.runs),
    storageBytes: async () => 0, // no artifacts are stored until result files land
  }, (err) => logger.warn('a metric could not be read; it keeps its last value', { err }));

  let scheduler: SchedulerRole | undefined;
  let worker: WorkerRole | undefined;
  let workerRedis: ReturnType<typeof createRedis> | undefined;
  let server: http.Server | undefined;
  let url: string | undefined;
  let app: Express | undefined;

  if (settings.roles.includes('scheduler')) {
    scheduler = createScheduler({ tickSeconds: settings.schedulerTickSeconds, tasks: [
      hourly('identity housekeeping', async (now) => {
        const purged = await purgeDeadIdentityRows(db, { idleMinutes: settings.sessionIdleMinutes }, now);
        if (purged.sessions + purged.passwordResets > 0) logger.info('dead sessions and reset links deleted', purged);
      }),
    ], logger });
    scheduler.start();
  }
  if (settings.roles.includes('worker')) {
    workerRedis = createRedis(settings.redisUrl, 'worker');
    workerRedis.on('error', (err) => problem('worker-redis', 'redis connection problem', { err }));
    worker = createWorker({ connection: workerRedis, prefix: settings.queuePrefix, catalog: jobCatalog([
      passwordResetMailJob({
        db, mailer: createMailer(settings.smtpUrl, settings.mailFrom), publicUrl: settings.publicUrl, secretKey: settings.keys.hmac,
      }),
    ]), logger });
    worker.start();
  }
  if (settings.roles.includes('api')) {
    app = await createApi({ settings, logger, sql, db, redis, enqueue, metrics, scheduler, version: packageVersion, startedAt });
  }
  const probeApp = settings.probeListen ? await createProbeApp({ settings, logger, sql, metrics, scheduler }) : undefined;
  let draining = false;
  if (app && options.listen !== false) {
    // While draining, answers close their connection, so idle keep-alive sockets do not hold the
    // stop until their timeout runs out. (Set before the app answers: an answer may be sent at once.)
    ({ server, url } = await listenOn(app, settings.listen, 'SVC_LISTEN', (_req, res) => {
      if (!draining) return;
      res.setHeader('Connection', 'close');
      res.on('finish', () => server?.closeIdleConnections());
    }));
    logger.info('api listening', { url, public_url: settings.publicUrl });
  }
  let probeServer: http.Server | undefined;
  let probeUrl: string | undefined;
  if (probeApp && settings.probeListen && options.listen !== false) {
    // Probes are one request per connection: nothing kept alive holds the stop.
    ({ server: probeServer, url: probeUrl } = await listenOn(probeApp, settings.probeListen, 'SVC_PROBE_LISTEN', (_req, res) => {
      res.setHeader('Connection', 'close');
    }));
    logger.info('probes and metrics listening', { url: probeUrl });
  }


  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const timeoutMs = settings.shutdownTimeoutSeconds * 1000;
      draining = true;
      if (server) {
        const s = server;
        const closed = new Promise<void>((resolve) => s.close(() => resolve()));
        s.closeIdleConnections();
        const timer = setTimeout(() => s.closeAllConnections(), timeoutMs);
        await closed;
        clearTimeout(timer);
        logger.info('api stopped');
      }
      await scheduler?.stop();
      await worker?.stop(timeoutMs);
      // Probes answer until the rest has stopped, so an orchestrator sees a draining process alive.
      if (probeServer) {
        const p = probeServer;
        await new Promise<void>((resolve) => { p.close(() => resolve()); p.closeAllConnections(); });
      }
      await Promise.all(Object.values(queues).map((q) => q.close()));
      redis.disconnect();
      workerRedis?.disconnect();
      await sql.end({ timeout: 5 });
    })();
    return stopping;
  };
  return { url, app, probeApp, probeUrl, scheduler, stop };
}
