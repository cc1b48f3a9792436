/**
 * API composition root: wires the domain services into the handlers and the HTTP edge.
 * It enqueues jobs but never consumes them.
 */
import type { Express } from 'express';
import type { Logger } from './infra/log/logger.js';
import type { Sql } from './infra/db/client.js';
import { storeAnswers } from './infra/db/client.js';
import { pendingMigrations } from './infra/db/migrate.js';
import { loadContract } from './infra/http/contract.js';
import { createHttpApp } from './infra/http/http-app.js';
import { checkReadiness } from './domain/health/readiness.js';
import { buildHandlers } from './handlers/index.js';
import type { Metrics } from './infra/metrics/metrics.js';
import type { SchedulerRole } from './scheduler.js';
import type { Settings } from './infra/config/settings.js';
import type { Authenticator } from './domain/identity/principal.js';

export interface ApiDeps {
  settings: Pick<Settings, 'publicUrl' | 'metricsToken' | 'roles'>;
  logger: Logger;
  sql: Sql;
  metrics: Metrics;
  scheduler?: SchedulerRole;
  version: string;
  startedAt: Date;
}

/** Nobody can sign in until identity lands; every credential is unknown. */
const noCredentials: Authenticator = { authenticate: async () => null };

export async function createApi(deps: ApiDeps): Promise<Express> {
  const contract = await loadContract(deps.settings.publicUrl);
  const handlers = buildHandlers({
    readiness: () => checkReadiness({
      storeAnswers: () => storeAnswers(deps.sql),
      pendingMigrations: () => pendingMigrations(deps.sql),
      scheduler: deps.scheduler,
    }),
    registry: deps.metrics.registry,
    metricsToken: deps.settings.metricsToken,
    about: { version: deps.version, startedAt: deps.startedAt, roles: deps.settings.roles },
  });
  return createHttpApp({
    publicUrl: deps.settings.publicUrl,
    api: contract.api,
    handlers,
    authenticator: noCredentials,
    logger: deps.logger,
    spec: contract.spec,
  });
}
