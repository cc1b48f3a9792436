/**
 * API composition root: wires the domain services into the handlers and the HTTP edge.
 * It enqueues jobs but never consumes them.
 */
import type { Express } from 'express';
import type { Logger } from './infra/log/logger.js';
import type { Sql } from './infra/db/client.js';
import { storeAnswers } from './infra/db/client.js';
import { pendingMigrations } from './infra/db/migrate.js';
import { loadContract } from './http/contract.js';
import { createHttpApp } from './http/http-app.js';
import { checkReadiness } from './domain/health/readiness.js';
import { buildHandlers, buildProbeHandlers, PROBE_OPERATIONS } from './handlers/index.js';
import type { Metrics } from './infra/metrics/metrics.js';
import type { SchedulerRole } from './scheduler.js';
import type { Settings } from './infra/config/settings.js';
import type { Db } from './infra/db/client.js';
import type { Redis } from 'ioredis';
import { createPasswordHasher } from './domain/identity/passwords.js';
import { createAuthService } from './domain/identity/auth-service.js';
import { createUsersService } from './domain/identity/users-service.js';
import { createSessionsService } from './domain/identity/sessions-service.js';
import { createApiKeysService } from './domain/identity/api-keys-service.js';
import { createAuthenticator } from './domain/identity/authenticator.js';
import {
  createAttemptGuard, createQuota, PASSWORD_CHANGE_POLICY, RESET_MAIL_QUOTA, RESET_POLICY, SIGN_IN_POLICY,
} from './infra/ratelimit/attempt-guard.js';
import type { Enqueue } from './infra/queue/job-catalog.js';
import { PASSWORD_RESET_MAIL } from './jobs/password-reset-mail.js';

export interface ApiDeps {
  settings: Pick<Settings, 'publicUrl' | 'metricsToken' | 'roles' | 'secretKey' | 'sessionIdleMinutes'
    | 'sessionMaxHours' | 'bcryptCost' | 'queuePrefix' | 'smtpUrl' | 'trustProxy' | 'corsOrigins'>;
  logger: Logger;
  sql: Sql;
  db: Db;
  redis: Redis;
  enqueue: Enqueue;
  metrics: Metrics;
  scheduler?: SchedulerRole;
  version: string;
  startedAt: Date;
  /** Aborted when the process drains: open event streams end. */
  shutdownSignal?: AbortSignal;
}

export async function createApi(deps: ApiDeps): Promise<Express> {
  const { settings, db } = deps;
  const contract = await loadContract(settings.publicUrl);
  const hasher = createPasswordHasher(settings.bcryptCost);
  const sessionPolicy = {
    idleMinutes: settings.sessionIdleMinutes, maxHours: settings.sessionMaxHours, secretKey: settings.secretKey,
  };
  const auth = createAuthService({
    db,
    hasher,
    sessionPolicy,
    signInGuard: createAttemptGuard(deps.redis, settings.queuePrefix, SIGN_IN_POLICY),
    passwordChangeGuard: createAttemptGuard(deps.redis, settings.queuePrefix, PASSWORD_CHANGE_POLICY),
    resetGuard: createAttemptGuard(deps.redis, settings.queuePrefix, RESET_POLICY),
    resetMailQuota: createQuota(deps.redis, settings.queuePrefix, RESET_MAIL_QUOTA),
    mailConfigured: settings.smtpUrl !== undefined,
    enqueueResetMail: (request) => deps.enqueue(PASSWORD_RESET_MAIL, request),
  });
  const handlers = buildHandlers({
    auth,
    users: createUsersService({ db, hasher }),
    sessions: createSessionsService({ db, policy: sessionPolicy }),
    apiKeys: createApiKeysService({ db }),
    db,
    readiness: readinessOf(deps),
    registry: deps.metrics.registry,
    metricsToken: deps.settings.metricsToken,
    about: { version: deps.version, startedAt: deps.startedAt, roles: deps.settings.roles },
  });
  return createHttpApp({
    publicUrl: deps.settings.publicUrl,
    trustProxy: settings.trustProxy,
    api: contract.api,
    handlers,
    authenticator: createAuthenticator(db, sessionPolicy),
    logger: deps.logger,
    document: contract.document,
    onRequestDone: deps.metrics.observeHttpRequest,
    shutdownSignal: deps.shutdownSignal,
    corsOrigins: settings.corsOrigins,
  });
}

function readinessOf(deps: Pick<ApiDeps, 'sql' | 'scheduler'>) {
  return () => checkReadiness({
    storeAnswers: () => storeAnswers(deps.sql),
    pendingMigrations: () => pendingMigrations(deps.sql),
    scheduler: deps.scheduler,
  });
}

/**
 * The probe listener of any process, when SVC_PROBE_LISTEN is set: /health/live, /health/ready
 * and /metrics only, so every process, workers and schedulers included, can be probed and scraped.
 */
export async function createProbeApp(
  deps: Pick<ApiDeps, 'settings' | 'logger' | 'sql' | 'metrics' | 'scheduler'>,
): Promise<Express> {
  const contract = await loadContract(deps.settings.publicUrl);
  return createHttpApp({
    publicUrl: deps.settings.publicUrl,
    trustProxy: deps.settings.trustProxy,
    api: contract.api,
    handlers: buildProbeHandlers({ readiness: readinessOf(deps), registry: deps.metrics.registry, metricsToken: deps.settings.metricsToken }),
    authenticator: { authenticate: async () => null },
    logger: deps.logger,
    document: contract.document,
    only: PROBE_OPERATIONS,
    onRequestDone: deps.metrics.observeHttpRequest,
  });
}
