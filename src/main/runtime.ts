/**
 * One Herald process: settings → logger → store → Redis → the listeners (SVC_LISTEN,
 * SVC_PROBE_LISTEN) → the scheduler and worker roles of SVC_ROLES, and an orderly
 * stop on SIGTERM/SIGINT (the API stops accepting and finishes in-flight requests, the scheduler
 * finishes its tick, workers finish or hand back their jobs, then connections close).
 */
import http from 'node:http';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import { SettingsError, type Settings } from '../infra/config/settings.js';
import type { Logger } from '../infra/log/logger.js';
import { createRedis } from '../infra/queue/queues.js';
import { createApi, createProbeApp, readinessOf } from './app.js';
import { createScheduler, type SchedulerRole } from './scheduler.js';
import { createWorker, type WorkerRole } from './worker.js';
import { createContainer, type Container, type ContainerOptions } from './container.js';
import { createServices, type Services } from './services.js';
import { storeTime } from '../infra/db/client.js';
import { buildJobCatalog } from './worker-jobs.js';
import { buildSchedulerTasks } from './scheduler-tasks.js';
import { healthOf } from '../domain/health/readiness.js';

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
  /** The process's shared container (tests reach the store and the clock through it). */
  container: Container;
  /** The domain services of every feature, built once from the container and shared by the roles. */
  services: Services;
  stop(): Promise<void>;
}

export interface StartOptions extends ContainerOptions {
  /** Listen on SVC_LISTEN (default true); tests drive the app without a socket. */
  listen?: boolean;
  /** The packed SDK served at /sdk/herald-sdk.tgz, instead of dist/sdk/herald-sdk.tgz. */
  sdkPackage?: string;
}

/** How long an idle keep-alive connection is kept (tests/process/keep-alive.test.ts). */
export const KEEP_ALIVE_MS = 65_000;

type BeforeAnswer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function listenOn(
  app: Express, at: { host: string; port: number }, setting: string, before: BeforeAnswer,
): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => { before(req, res); app(req, res); });
  // Longer than clients keep an idle connection (Node's global agent 5 s, undici 4 s) and than a
  // load balancer in front does (AWS: 60 s): the client lets go first. At 5 s, as Node's own
  // default, a client could reuse a socket the server was closing at that moment (ECONNRESET).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
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

/**
 * Says where to go, once the port is bound: the API description, and while no user exists the
 * setup step (the hint disappears once setup is done).
 */
async function announceWhereToGo(c: Container): Promise<void> {
  const base = c.settings.publicUrl;
  let open = false;
  try {
    open = (await c.identity.users.count()) === 0;
  } catch (err) {
    c.logger.warn('could not tell whether setup is open', { err });
  }
  const ui = c.settings.webDir !== undefined;
  const message = open
    ? (ui
      ? `Herald is ready at ${base}: first run, open ${base}/ in a browser to create the first admin (or POST ${base}/api/v1/setup, see the README); API description and Swagger UI at ${base}/docs`
      : `Herald is ready at ${base}: first run, create the first admin with POST ${base}/api/v1/setup (see the README) or in Swagger UI at ${base}/docs`)
    : (ui
      ? `Herald is ready at ${base}: the web UI at ${base}/, API description and Swagger UI at ${base}/docs`
      : `Herald is ready at ${base}: API description and Swagger UI at ${base}/docs`);
  c.logger.info(message, { setup_open: open, web_ui: ui });
}

export async function startProcess(settings: Settings, logger: Logger, options: StartOptions = {}): Promise<RunningProcess> {
  const c = createContainer(settings, logger, { ...options, storeChecks: true });
  const services = createServices(c);
  let scheduler: SchedulerRole | undefined;
  let worker: WorkerRole | undefined;
  let workerRedis: ReturnType<typeof createRedis> | undefined;
  let server: http.Server | undefined;
  let url: string | undefined;
  let app: Express | undefined;
  let probeApp: Express | undefined;
  let probeServer: http.Server | undefined;
  let probeUrl: string | undefined;
  let draining = false;

  // The addresses are bound before any role takes work: a process that cannot listen exits
  // without having claimed a due report or taken a job.
  try {
    if (settings.roles.includes('scheduler')) {
      // Due is decided by the store's clock (shared by every scheduler); a test's manual clock replaces it.
      const time = options.clock ? undefined : () => storeTime(c.sql);
      // The heartbeat asks this process's readiness, which knows the scheduler once it is made.
      let ready = async () => ({ healthy: false, reason: 'starting' as string | null });
      scheduler = createScheduler({
        tickSeconds: settings.schedulerTickSeconds, tasks: buildSchedulerTasks(c, services, () => ready()), logger, clock: c.clock, ...(time ? { time } : {}),
        completed: (at) => services.opsStatus.put('scheduler.tick', { at: at.toISOString() }, at),
      });
      const readiness = readinessOf(c, { scheduler, reconciler: services.reconciler });
      ready = async () => healthOf(await readiness());
    }
    if (settings.roles.includes('api')) app = await createApi(c, services, { scheduler, reconciler: services.reconciler }, options.sdkPackage);
    probeApp = settings.probeListen ? await createProbeApp(c, { scheduler, reconciler: services.reconciler }) : undefined;
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
    if (probeApp && settings.probeListen && options.listen !== false) {
      // Probes are one request per connection: nothing kept alive holds the stop.
      ({ server: probeServer, url: probeUrl } = await listenOn(probeApp, settings.probeListen, 'SVC_PROBE_LISTEN', (_req, res) => {
        res.setHeader('Connection', 'close');
      }));
      logger.info('probes and metrics listening', { url: probeUrl });
    }
  } catch (err) {
    // No role has started: close what was opened, and the caller reports the error.
    if (server) {
      const s = server;
      await new Promise<void>((resolve) => { s.close(() => resolve()); s.closeAllConnections(); });
    }
    await c.close().catch((closing: unknown) => logger.warn('could not close the store and Redis connections', { err: closing }));
    throw err;
  }

  scheduler?.start();
  if (settings.roles.includes('worker')) {
    workerRedis = createRedis(settings.redisUrl, 'worker');
    workerRedis.on('error', (err) => c.connectionProblem('worker-redis', 'redis connection problem', { err }));
    worker = createWorker({
      connection: workerRedis, prefix: settings.queuePrefix, catalog: buildJobCatalog(c, services), logger,
      concurrency: { runs: settings.workerConcurrency, mail: settings.workerConcurrency, deliveries: settings.deliveryConcurrency },
      lockDurationMs: settings.workerLockSeconds * 1000,
    });
    worker.start();
  }
  if (server) await announceWhereToGo(c);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      const timeoutMs = settings.shutdownTimeoutSeconds * 1000;
      draining = true;
      c.drain(); // open event streams end now, so closing the server does not wait for them
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
      workerRedis?.disconnect();
      await c.close();
    })();
    return stopping;
  };
  return { url, app, probeApp, probeUrl, scheduler, container: c, services, stop };
}
