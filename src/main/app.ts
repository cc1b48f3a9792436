/**
 * API composition root: wires the domain services into the handlers and the HTTP edge.
 * It enqueues jobs but never consumes them.
 */
import type { Express } from 'express';
import { CONNECTOR_LIMITS, type Container } from './container.js';
import { connectionsRepo as createConnectionsRepo } from '../infra/db/stores/connections-repo.js';
import { createQueryUsage, queriesRepo as createQueriesRepo } from '../infra/db/stores/queries-repo.js';
import { createReportsRepo } from '../infra/db/stores/reports-repo.js';
import { createSchemaCheck } from '../infra/validation/json-schema.js';
import { deliveryParts } from './delivery-parts.js';
import { createChannelsService } from '../domain/channels/channels-service.js';
import { settingsView } from '../domain/channels/channel-settings.js';
import type { ChannelRecord } from '../domain/channels/model.js';
import { createDeliveriesService } from '../domain/deliveries/deliveries-service.js';
import { createRetryService } from '../domain/deliveries/retry-service.js';
import { createResendQueue } from '../jobs/resend-delivery.js';
import { createResultDownloads } from '../domain/results/downloads.js';
import { createLinksService } from '../domain/links/links-service.js';
import { createLinksRepo } from '../infra/db/stores/links-repo.js';
import { createStorageRepo } from '../infra/db/stores/storage-repo.js';
import { createConnectionsService } from '../domain/connections/connections-service.js';
import { createQueriesService } from '../domain/queries/queries-service.js';
import { createPreviewService } from '../domain/queries/preview-service.js';
import { createSchedulesService } from '../domain/schedules/schedules-service.js';
import { createReportsService } from '../domain/reports/reports-service.js';
import { createRunsService } from '../domain/runs/runs-service.js';
import { createRunQueue } from '../jobs/run-report-spec.js';
import { storeAnswers } from '../infra/db/client.js';
import { pendingMigrations } from '../infra/db/migrate.js';
import { loadContract } from '../http/contract.js';
import { createHttpApp } from '../http/http-app.js';
import { checkReadiness } from '../domain/health/readiness.js';
import { buildHandlers, buildProbeHandlers, PROBE_OPERATIONS } from '../handlers/index.js';
import type { SchedulerRole } from './scheduler.js';
import { createPasswordHasher } from '../domain/identity/passwords.js';
import { createSetupService } from '../domain/identity/setup-service.js';
import { createSignInService } from '../domain/identity/sign-in-service.js';
import { createPasswordService } from '../domain/identity/password-service.js';
import { createUsersService } from '../domain/identity/users-service.js';
import { createSessionsService } from '../domain/identity/sessions-service.js';
import { createApiKeysService } from '../domain/identity/api-keys-service.js';
import { createSecurityEventsService } from '../domain/identity/security-events.js';
import { createAuthenticator } from '../domain/identity/authenticator.js';
import { createTwoFactorService } from '../domain/identity/two-factor-service.js';
import { createPasskeysService, relyingPartyOf } from '../domain/identity/passkeys-service.js';
import { createOidcService } from '../domain/identity/oidc-service.js';
import { createWorkspaceSettingsService } from '../domain/identity/workspace-settings.js';
import { createOidcTransport } from '../infra/outbound/oidc-transport.js';
import type { SessionPolicy } from '../domain/identity/sessions.js';
import {
  addressKey, createAttemptGuard, createQuota, PASSKEY_SIGN_IN_POLICY, PASSWORD_CHANGE_POLICY, SECOND_FACTOR_POLICY, SHARED_LINK_QUOTA,
  RESET_MAIL_QUOTA, RESET_POLICY, SIGN_IN_POLICY,
} from '../infra/ratelimit/attempt-guard.js';
import { PASSWORD_RESET_MAIL } from '../jobs/password-reset-mail.js';

type ApiContainer = Pick<Container, 'settings' | 'logger' | 'feed' | 'eventHistory' | 'uow' | 'clock' | 'sql' | 'db' | 'redis' | 'identity' | 'enqueue' | 'metrics'
  | 'version' | 'startedAt' | 'plugins' | 'pools' | 'secretBox' | 'shutdownSignal' | 'passwordHasher' | 'events' | 'artifacts' | 'channelHttp' | 'artifactsLocation'>;

export function sessionPolicyOf(settings: Container['settings']): SessionPolicy {
  return {
    idleMinutes: settings.sessionIdleMinutes, maxHours: settings.sessionMaxHours,
    secretKey: settings.keys.hmac, previousSecretKeys: settings.keys.hmacKeys.slice(1),
  };
}

export async function createApi(c: ApiContainer, roles: { scheduler?: SchedulerRole | undefined } = {}): Promise<Express> {
  const { settings, identity: store, clock } = c;
  const contract = await loadContract(settings.publicUrl);
  const hasher = c.passwordHasher ?? createPasswordHasher(settings.bcryptCost);
  const sessionPolicy = sessionPolicyOf(settings);
  const guard = (policy: typeof SIGN_IN_POLICY) => createAttemptGuard(c.redis, settings.queuePrefix, policy, clock);
  const rp = relyingPartyOf(settings.publicUrl);
  const secrets = c.secretBox;
  const handlers = buildHandlers({
    setup: createSetupService({ store, hasher, sessionPolicy, clock }),
    signIn: createSignInService({
      store, hasher, sessionPolicy, secrets, rp, clock,
      signInGuard: guard(SIGN_IN_POLICY), secondFactorGuard: guard(SECOND_FACTOR_POLICY), passkeyGuard: guard(PASSKEY_SIGN_IN_POLICY),
    }),
    twoFactor: createTwoFactorService({ store, hasher, secrets, guard: guard(PASSWORD_CHANGE_POLICY), clock }),
    passkeys: createPasskeysService({ store, rp, clock }),
    oidc: createOidcService({
      store, secrets, sessionPolicy, clock, publicUrl: settings.publicUrl,
      transport: createOidcTransport(c.channelHttp),
    }),
    workspaceSettings: createWorkspaceSettingsService({ store, clock }),
    passwords: createPasswordService({
      store,
      hasher,
      sessionPolicy,
      passwordChangeGuard: guard(PASSWORD_CHANGE_POLICY),
      resetGuard: guard(RESET_POLICY),
      resetMailQuota: createQuota(c.redis, settings.queuePrefix, RESET_MAIL_QUOTA),
      mailConfigured: settings.smtpUrl !== undefined,
      enqueueResetMail: (request) => c.enqueue(PASSWORD_RESET_MAIL, request),
      clock,
    }),
    users: createUsersService({ store, hasher, clock }),
    sessions: createSessionsService({ store, policy: sessionPolicy, clock }),
    apiKeys: createApiKeysService({ store, clock }),
    securityEvents: createSecurityEventsService({ events: store.events }),
    ...dataServices(c),
    readiness: readinessOf(c, roles.scheduler),
    registry: c.metrics.registry,
    metricsToken: settings.metricsToken,
    about: { version: c.version, startedAt: c.startedAt, roles: settings.roles },
  });
  return createHttpApp({
    publicUrl: settings.publicUrl,
    trustProxy: settings.trustProxy,
    api: contract.api,
    handlers,
    authenticator: createAuthenticator({ store, policy: sessionPolicy, clock }),
    logger: c.logger,
    document: contract.document,
    onRequestDone: c.metrics.observeHttpRequest,
    shutdownSignal: c.shutdownSignal,
    corsOrigins: settings.corsOrigins,
  });
}

/** Plugins, connections, queries, preview, schedules and reports. */
function dataServices(c: ApiContainer) {
  const connectionsRepo = createConnectionsRepo(c.db);
  const queriesStore = createQueriesRepo(c.db);
  return {
    plugins: c.plugins,
    connections: createConnectionsService({
      store: connectionsRepo, uow: c.uow, plugins: c.plugins, secrets: c.secretBox,
      checkSchema: createSchemaCheck(), pools: c.pools, limits: CONNECTOR_LIMITS, clock: c.clock,
    }),
    queries: createQueriesService({ store: queriesStore, uow: c.uow, usage: createQueryUsage(c.db), clock: c.clock }),
    preview: createPreviewService({ queries: queriesStore, connections: connectionsRepo, pools: c.pools }),
    schedules: createSchedulesService({ clock: c.clock }),
    reports: createReportsService({
      store: createReportsRepo(c.db), uow: c.uow, queries: queriesStore, files: c.artifacts, clock: c.clock, log: c.logger,
    }),
    ...runServices(c),
  };
}

/** Shared-link downloads per client address (an IPv6 client by its /64). */
function linkQuota(c: ApiContainer) {
  const quota = createQuota(c.redis, c.settings.queuePrefix, SHARED_LINK_QUOTA);
  return { take: (ip: string) => quota.take(addressKey(ip)) };
}

/** Runs (manual and test runs, cancel), the live event stream, channels, deliveries and resends. */
function runServices(c: ApiContainer) {
  const parts = deliveryParts(c);
  const downloads = createResultDownloads({
    runs: parts.runs, artifacts: c.artifacts,
    reportTitle: async (reportId: string) => (await parts.context.runContext(reportId, null))?.report.title,
  });
  const checkSchema = createSchemaCheck();
  const channels = createChannelsService({
    store: parts.channels, uow: c.uow, plugins: c.plugins, secrets: c.secretBox, checkSchema,
    http: c.channelHttp, clock: c.clock, publicUrl: c.settings.publicUrl,
  });
  const runs = createRunsService({
    runs: parts.runs, queue: createRunQueue(c.enqueue), events: c.events, clock: c.clock, log: c.logger,
    finished: (status, trigger) => c.metrics.runsTotal.inc({ status, trigger }),
  });
  return {
    runs: { ...runs, attemptsOf: (run: { id: string }) => parts.attempts.listForRun(run.id) },
    eventFeed: c.feed,
    eventHistory: c.eventHistory,
    channels: {
      ...channels,
      settingsView: (ch: ChannelRecord) => settingsView(ch, c.plugins.channel(ch.type), c.secretBox),
      callerEmail: async (userId: string | undefined) => (userId ? (await c.identity.users.find(userId))?.email ?? null : null),
    },
    deliveries: createDeliveriesService({
      store: parts.deliveries, channels: parts.channels, plugins: c.plugins, secrets: c.secretBox, checkSchema,
      context: parts.context, sender: parts.sender, events: c.identity.events, clock: c.clock,
    }),
    downloads,
    storage: async () => ({ ...(await createStorageRepo(c.db).usage()), ...c.artifactsLocation, retentionDays: c.settings.resultRetentionDays }),
    links: createLinksService({
      store: createLinksRepo(c.db), runs: parts.runs, downloads, quota: linkQuota(c),
      events: c.identity.events, clock: c.clock, publicUrl: c.settings.publicUrl,
    }),
    retries: createRetryService({
      attempts: parts.attempts, deliveries: parts.deliveries, channels: parts.channels, runs: parts.runs,
      queue: createResendQueue(c.enqueue, () => c.clock.now()), clock: c.clock, log: c.logger.child({ component: 'deliveries' }),
    }),
  };
}

function readinessOf(c: Pick<Container, 'sql' | 'clock'>, scheduler: SchedulerRole | undefined) {
  return () => checkReadiness({
    storeAnswers: () => storeAnswers(c.sql),
    pendingMigrations: () => pendingMigrations(c.sql),
    scheduler,
    now: () => c.clock.now(),
  });
}

/**
 * The probe listener of any process, when SVC_PROBE_LISTEN is set: /health/live, /health/ready
 * and /metrics only, so every process, workers and schedulers included, can be probed and scraped.
 */
export async function createProbeApp(
  c: Pick<Container, 'settings' | 'logger' | 'sql' | 'clock' | 'metrics'>, roles: { scheduler?: SchedulerRole | undefined } = {},
): Promise<Express> {
  const contract = await loadContract(c.settings.publicUrl);
  return createHttpApp({
    publicUrl: c.settings.publicUrl,
    trustProxy: c.settings.trustProxy,
    api: contract.api,
    handlers: buildProbeHandlers({ readiness: readinessOf(c, roles.scheduler), registry: c.metrics.registry, metricsToken: c.settings.metricsToken }),
    authenticator: { authenticate: async () => null },
    logger: c.logger,
    document: contract.document,
    only: PROBE_OPERATIONS,
    onRequestDone: c.metrics.observeHttpRequest,
  });
}
