/**
 * API composition root: hands the services of the one wiring (src/main/services.ts) to the
 * handlers and the HTTP edge. It enqueues jobs but never consumes them.
 */
import type { Express } from 'express';
import type { Container } from './container.js';
import { dashboardServices, type Services } from './services.js';
import { storeAnswers } from '../infra/db/client.js';
import { pendingMigrations } from '../infra/db/migrate.js';
import { loadContract } from '../http/contract.js';
import { createHttpApp } from '../http/http-app.js';
import { checkReadiness } from '../domain/health/readiness.js';
import { redisAnswers } from '../infra/queue/queues.js';
import { sentinelProbe } from '../infra/queue/sentinel-probe.js';
import { buildHandlers, buildProbeHandlers, PROBE_OPERATIONS } from '../handlers/index.js';
import type { SchedulerRole } from './scheduler.js';
import { FAILURES_UNHEALTHY, type Reconciler } from '../domain/config/gitops.js';
import { sdkPackagePath } from '../infra/paths.js';
import { createAnswerCache } from '../handlers/answer-cache.js';

type ApiContainer = Pick<Container, 'settings' | 'logger' | 'clock' | 'sql' | 'repos' | 'metrics' | 'version' | 'startedAt' | 'shutdownSignal' | 'redis' | 'events'>;

/**
 * The API's request handler. `sdkPackage`: the packed SDK it serves at /sdk/herald-sdk.tgz (tests
 * give a fresh one; by default dist/sdk/herald-sdk.tgz, which `make build` writes).
 */
export async function createApi(c: ApiContainer, services: Services, roles: Roles = {}, sdkPackage = sdkPackagePath): Promise<Express> {
  const { settings } = c;
  const contract = await loadContract(settings.publicUrl);
  const { authenticator, ...domain } = services;
  // Principals are held for a few seconds, once this process hears of every change to them
  // (identity.changed, from any process): until then, and if that fails, every request looks
  // its credential up in the store.
  c.events.subscribe((e) => {
    if (e.type === 'identity.changed') authenticator.forget(typeof e.data.user_id === 'string' ? e.data.user_id : undefined);
  }).then(() => authenticator.holdPrincipals(true), (err: unknown) => {
    c.logger.warn('identity changes are not received: credentials are looked up on every request', { err });
  });
  const readiness = readinessOf(c, roles);
  const handlers = buildHandlers({
    ...domain,
    ...dashboardServices(c, readiness),
    readiness,
    registry: c.metrics.registry,
    metricsToken: settings.metricsToken,
    answers: createAnswerCache({ maxBytes: settings.answerCacheMiB * 1024 * 1024, observe: (outcome) => c.metrics.answerCacheTotal.inc({ outcome }) }),
    about: { version: c.version, startedAt: c.startedAt, roles: settings.roles },
  });
  return createHttpApp({
    publicUrl: settings.publicUrl,
    trustProxy: settings.trustProxy,
    api: contract.api,
    handlers,
    authenticator,
    logger: c.logger,
    document: contract.document,
    onRequestDone: c.metrics.observeHttpRequest,
    shutdownSignal: c.shutdownSignal,
    corsOrigins: settings.corsOrigins,
    webDir: settings.webDir,
    sdkPackage,
  });
}

/** The roles this process runs that readiness reports on: the scheduler, and its reconciler of SVC_GITOPS_DIR. */
interface Roles {
  scheduler?: SchedulerRole | undefined;
  reconciler?: Reconciler | undefined;
}

export function readinessOf(c: Pick<Container, 'sql' | 'clock' | 'redis' | 'settings'>, { scheduler, reconciler }: Roles) {
  // Under Sentinel, a Redis away while its primary switches is degraded, not unhealthy.
  const sentinel = sentinelProbe(c.settings.redisUrl);
  return () => checkReadiness({
    storeAnswers: () => storeAnswers(c.sql),
    pendingMigrations: () => pendingMigrations(c.sql),
    redisAnswers: async () => {
      const answered = await redisAnswers(c.redis);
      sentinel?.observe(answered);
      return answered;
    },
    ...(sentinel ? { redisSwitching: () => sentinel.switching() } : {}),
    scheduler,
    ...(scheduler && reconciler ? { gitops: { failures: reconciler.failures, unhealthyAfter: FAILURES_UNHEALTHY } } : {}),
    now: () => c.clock.now(),
  });
}

/**
 * The probe listener of any process, when SVC_PROBE_LISTEN is set: /health/live, /health/ready
 * and /metrics only, so every process, workers and schedulers included, can be probed and scraped.
 */
export async function createProbeApp(
  c: Pick<Container, 'settings' | 'logger' | 'sql' | 'clock' | 'metrics' | 'redis'>, roles: Roles = {},
): Promise<Express> {
  const contract = await loadContract(c.settings.publicUrl);
  return createHttpApp({
    publicUrl: c.settings.publicUrl,
    trustProxy: c.settings.trustProxy,
    api: contract.api,
    handlers: buildProbeHandlers({ readiness: readinessOf(c, roles), registry: c.metrics.registry, metricsToken: c.settings.metricsToken }),
    authenticator: { authenticate: async () => null },
    logger: c.logger,
    document: contract.document,
    only: PROBE_OPERATIONS,
    onRequestDone: c.metrics.observeHttpRequest,
  });
}
