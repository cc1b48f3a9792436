/**
 * One wiring for every process kind: createServices builds each feature's domain services once,
 * from the container's repositories (made once per process), with per-feature factories that each
 * take only the slice of the container they use (Pick<Container, …>). The API hands the services
 * to the handlers (src/main/app.ts), the worker to its job types (src/main/worker-jobs.ts), the
 * scheduler to its tasks (src/main/scheduler-tasks.ts). Building a service starts nothing: no
 * connection, timer or subscription (those belong to the roles).
 */
import { readFile } from 'node:fs/promises';
import { assistantServices } from './assistant-services.js';
import { operationsServices } from './operations-services.js';
import { CONNECTOR_LIMITS, type Container } from './container.js';
import { createConfigService } from '../domain/config/config-service.js';
import { createGitopsService, createReconciler, FAILURES_UNHEALTHY } from '../domain/config/gitops.js';
import { gitopsDirectory } from './config-sources.js';
import { createSchemaCheck } from '../infra/validation/json-schema.js';
import {
  addressKey, createAttemptGuard, createQuota, PASSKEY_SIGN_IN_POLICY, PASSWORD_CHANGE_POLICY, RESET_MAIL_QUOTA, RESET_POLICY,
  SECOND_FACTOR_POLICY, SHARED_LINK_QUOTA, SIGN_IN_POLICY, type GuardPolicy,
} from '../infra/ratelimit/attempt-guard.js';
import { createOidcTransport } from '../infra/outbound/oidc-transport.js';
import { createMailer } from '../infra/mail/mailer.js';
import { createRunJobs } from '../infra/queue/run-jobs.js';
import { createChannelsService } from '../domain/channels/channels-service.js';
import { createDeliveriesService, type DeliveryContextSource } from '../domain/deliveries/deliveries-service.js';
import { createDeliverySender } from '../domain/deliveries/sender.js';
import { createRetryService } from '../domain/deliveries/retry-service.js';
import { createDeliveryPlanner, createDeliverySweep, createDeliveryWorker } from '../domain/deliveries/delivery-worker.js';
import { createDeliveryQueue } from '../infra/queue/delivery-jobs.js';
import { createChannelGate } from '../infra/queue/channel-gate.js';
import { createResultDownloads } from '../domain/results/downloads.js';
import { createRetention } from '../domain/results/retention.js';
import { createStorageService } from '../domain/results/storage.js';
import { createLinkMaker, createLinksService } from '../domain/links/links-service.js';
import { createConnectionsService } from '../domain/connections/connections-service.js';
import { createQueriesService } from '../domain/queries/queries-service.js';
import { createPreviewService } from '../domain/queries/preview-service.js';
import { createSchedulesService } from '../domain/schedules/schedules-service.js';
import { createReportsService } from '../domain/reports/reports-service.js';
import { createRunsService } from '../domain/runs/runs-service.js';
import { createRunEngine } from '../domain/runs/run-engine.js';
import { judgeCondition } from '../domain/reports/condition.js';
import { createScheduling, runLeaseMs } from '../domain/runs/scheduling.js';
import { endLostRun } from '../domain/runs/lost-runs.js';
import type { RunStatus, RunTrigger } from '../domain/runs/model.js';
import { createPasswordHasher } from '../domain/identity/passwords.js';
import { createSetupService } from '../domain/sign-in/setup-service.js';
import { createSignInService } from '../domain/sign-in/sign-in-service.js';
import { createPasswordService } from '../domain/sign-in/password-service.js';
import { createUsersService } from '../domain/users/users-service.js';
import { createSessionsService } from '../domain/sign-in/sessions-service.js';
import { createApiKeysService } from '../domain/api-keys/api-keys-service.js';
import { createSecurityEventsService } from '../domain/audit/security-events.js';
import { createAuthenticator } from '../domain/sign-in/authenticator.js';
import { createTwoFactorService } from '../domain/sign-in/two-factor-service.js';
import { createPasskeysService, relyingPartyOf } from '../domain/sign-in/passkeys-service.js';
import { createOidcService } from '../domain/sign-in/oidc-service.js';
import { createWorkspaceSettingsService } from '../domain/workspace/workspace-settings.js';
import type { SessionPolicy } from '../domain/sign-in/sessions.js';
import { createRunQueue, runJobSpec } from '../jobs/run-report-spec.js';
import { deliverJobSpec } from '../jobs/deliver.js';
import { PASSWORD_RESET_MAIL } from '../jobs/password-reset-mail.js';
import { notificationServices } from './notification-services.js';
import { createDashboardService } from '../domain/dashboard/dashboard-service.js';
import type { Readiness } from '../domain/health/readiness.js';
import { MAX_RETRY_WAIT_MS, SEND_TIMEOUT_MS } from './send-limits.js';

export function sessionPolicyOf(settings: Container['settings']): SessionPolicy {
  return {
    idleMinutes: settings.sessionIdleMinutes, maxHours: settings.sessionMaxHours,
    secretKey: settings.keys.hmac, previousSecretKeys: settings.keys.hmacKeys.slice(1),
  };
}

/** Sign-in, sessions, users, API keys, second factors, OIDC, workspace settings and the audit trail. */
export function identityServices(c: Pick<Container, 'settings' | 'identity' | 'uow' | 'clock' | 'redis' | 'secretBox' | 'passwordHasher' | 'channelHttp' | 'enqueue'>) {
  const { settings, identity: store, clock } = c;
  // Its dummy hash made at once where sign-ins are answered, on first use elsewhere.
  const hasher = c.passwordHasher ?? createPasswordHasher(settings.bcryptCost, 12, { warm: settings.roles.includes('api') });
  const sessionPolicy = sessionPolicyOf(settings);
  const guard = (policy: GuardPolicy) => createAttemptGuard(c.redis, settings.queuePrefix, policy, clock);
  const rp = relyingPartyOf(settings.publicUrl);
  const secrets = c.secretBox;
  const { uow } = c;
  return {
    setup: createSetupService({ store, uow, hasher, sessionPolicy, clock }),
    signIn: createSignInService({
      store, uow, hasher, sessionPolicy, secrets, rp, clock,
      signInGuard: guard(SIGN_IN_POLICY), secondFactorGuard: guard(SECOND_FACTOR_POLICY), passkeyGuard: guard(PASSKEY_SIGN_IN_POLICY),
    }),
    twoFactor: createTwoFactorService({ store, uow, hasher, secrets, guard: guard(PASSWORD_CHANGE_POLICY), clock }),
    passkeys: createPasskeysService({ store, uow, rp, clock }),
    oidc: createOidcService({
      store, uow, secrets, sessionPolicy, clock, publicUrl: settings.publicUrl,
      transport: createOidcTransport(c.channelHttp),
    }),
    workspaceSettings: createWorkspaceSettingsService({ store, uow, clock }),
    passwords: createPasswordService({
      store,
      uow,
      hasher,
      sessionPolicy,
      passwordChangeGuard: guard(PASSWORD_CHANGE_POLICY),
      resetGuard: guard(RESET_POLICY),
      resetMailQuota: createQuota(c.redis, settings.queuePrefix, RESET_MAIL_QUOTA),
      mailConfigured: settings.smtpUrl !== undefined,
      enqueueResetMail: (request) => c.enqueue(PASSWORD_RESET_MAIL, request),
      clock,
    }),
    users: createUsersService({ store, uow, hasher, clock }),
    sessions: createSessionsService({ store, uow, policy: sessionPolicy, clock }),
    apiKeys: createApiKeysService({ store, uow, clock }),
    securityEvents: createSecurityEventsService({ events: store.events }),
    authenticator: createAuthenticator({ store, policy: sessionPolicy, clock }),
    /** The instance's own mail (password reset links), sent by the worker's mail job. */
    mailer: createMailer(settings.smtpUrl, settings.mailFrom),
  };
}

/** Plugins, connections, queries, preview, schedules and reports. */
export function dataServices(c: Pick<Container, 'repos' | 'uow' | 'plugins' | 'secretBox' | 'pools' | 'clock' | 'artifacts' | 'logger'>) {
  const { repos } = c;
  return {
    plugins: c.plugins,
    stamps: repos.rowStamps,
    connections: createConnectionsService({
      store: repos.connections, uow: c.uow, plugins: c.plugins, secrets: c.secretBox,
      checkSchema: createSchemaCheck(), pools: c.pools, limits: CONNECTOR_LIMITS, clock: c.clock,
    }),
    queries: createQueriesService({ store: repos.queries, uow: c.uow, usage: repos.queryUsage, clock: c.clock }),
    preview: createPreviewService({ queries: repos.queries, connections: repos.connections, pools: c.pools, clock: c.clock }),
    schedules: createSchedulesService({ clock: c.clock }),
    reports: createReportsService({
      store: repos.reports, uow: c.uow, queries: repos.queries, files: c.artifacts, clock: c.clock, log: c.logger,
      reads: repos.reportReads,
    }),
  };
}

type DeliveryContainer = Pick<Container, 'settings' | 'repos' | 'uow' | 'plugins' | 'secretBox' | 'artifacts' | 'channelHttp' | 'events' | 'metrics'
  | 'clock' | 'logger' | 'identity' | 'enqueue' | 'queues' | 'redis'>;

/**
 * Channels, deliveries, the sender (templates, attachments, quick retries), the delivery worker
 * (each delivery a job on the deliveries queue: the channel's gate, the retry schedule, the run's
 * settling), the planner the run engine hands a run's deliveries to, resends and the sweep's half.
 */
export function deliveryServices(c: DeliveryContainer) {
  const { repos } = c;
  const log = c.logger.child({ component: 'deliveries' });
  const context: DeliveryContextSource = {
    runContext: (reportId, createdBy) => repos.runEngine.runContext(reportId, createdBy),
    latestResultRun: (reportId) => repos.runs.latestResultRun(reportId),
  };
  const links = createLinkMaker({ store: repos.links, runs: repos.runs, clock: c.clock, publicUrl: c.settings.publicUrl });
  const sender = createDeliverySender({
    links, plugins: c.plugins, secrets: c.secretBox, artifacts: c.artifacts, http: c.channelHttp, clock: c.clock, publicUrl: c.settings.publicUrl,
    retry: { sends: c.settings.deliverySends, baseDelayMs: c.settings.deliveryBackoffMs, maxDelayMs: MAX_RETRY_WAIT_MS, sendTimeoutMs: SEND_TIMEOUT_MS },
  });
  const queue = createDeliveryQueue(c.queues.deliveries, deliverJobSpec);
  const checkSchema = createSchemaCheck();
  return {
    context,
    sender,
    deliveryPlanner: createDeliveryPlanner({ deliveries: repos.deliveryPlans, queue }),
    deliveryWorker: createDeliveryWorker({
      attempts: repos.attempts, sender,
      gate: createChannelGate({
        redis: c.redis, prefix: c.settings.queuePrefix,
        breaker: { failures: c.settings.deliveryBreakerFailures, openMs: c.settings.deliveryBreakerSeconds * 1000 },
      }),
      channelLimit: c.settings.deliveryChannelLimit,
      schedule: { waitsMs: c.settings.deliveryRetrySchedule, maxAgeMs: c.settings.deliveryRetryMaxHours * 3_600_000 },
      queue, uow: c.uow, clock: c.clock, log,
      metrics: {
        sent: (destination, status, seconds) => {
          c.metrics.deliveriesTotal.inc({ destination, status });
          c.metrics.deliveryDuration.observe({ destination }, seconds);
        },
        runFinished: (status, trigger, seconds) => {
          c.metrics.runsTotal.inc({ status, trigger });
          c.metrics.runDuration.observe(seconds);
        },
      },
    }),
    sweepDeliveries: createDeliverySweep({ attempts: repos.attempts, queue, log }),
    channels: createChannelsService({
      store: repos.channels, uow: c.uow, plugins: c.plugins, secrets: c.secretBox, checkSchema,
      http: c.channelHttp, users: c.identity.users, clock: c.clock, publicUrl: c.settings.publicUrl,
    }),
    deliveries: createDeliveriesService({
      store: repos.deliveries, channels: repos.channels, plugins: c.plugins, secrets: c.secretBox, checkSchema,
      uow: c.uow, context, sender, clock: c.clock,
    }),
    retries: createRetryService({
      attempts: repos.attempts, deliveries: repos.deliveries, channels: repos.channels, runs: repos.runs, queue, clock: c.clock, log,
    }),
  };
}

type DeliveryParts = Pick<ReturnType<typeof deliveryServices>, 'context' | 'deliveryPlanner'>;

/**
 * Runs: the API's runs (manual and test runs, cancel), result downloads and shared links, the
 * storage figures; the worker's run engine; the scheduler's claim and sweep, and retention.
 */
export function runServices(
  c: Pick<Container, 'settings' | 'repos' | 'uow' | 'pools' | 'artifacts' | 'artifactsLocation' | 'events' | 'metrics' | 'clock' | 'logger'
    | 'identity' | 'enqueue' | 'queues' | 'redis' | 'feed' | 'eventHistory'>,
  delivery: DeliveryParts,
) {
  const { repos } = c;
  const log = c.logger.child({ component: 'runs' });
  const finished = (status: RunStatus, trigger: RunTrigger) => c.metrics.runsTotal.inc({ status, trigger });
  const downloads = createResultDownloads({
    runs: repos.runs, artifacts: c.artifacts,
    reportTitle: async (reportId: string) => (await delivery.context.runContext(reportId, null))?.report.title,
  });
  const linkQuota = createQuota(c.redis, c.settings.queuePrefix, SHARED_LINK_QUOTA);
  return {
    runs: createRunsService({
      runs: repos.runs, uow: c.uow, attempts: repos.attempts, queue: createRunQueue(c.enqueue), clock: c.clock, log: c.logger, finished,
    }),
    eventFeed: c.feed,
    eventHistory: c.eventHistory,
    downloads,
    links: createLinksService({
      store: repos.links, uow: c.uow, runs: repos.runs, downloads,
      // Shared-link downloads per client address (an IPv6 client by its /64).
      quota: { take: (ip: string) => linkQuota.take(addressKey(ip)) },
      clock: c.clock, publicUrl: c.settings.publicUrl,
    }),
    storage: createStorageService({ store: repos.storage, where: c.artifactsLocation, retentionDays: c.settings.resultRetentionDays }),
    retention: createRetention({ store: repos.storage, artifacts: c.artifacts, days: c.settings.resultRetentionDays, log: c.logger.child({ component: 'scheduler' }) }),
    engine: createRunEngine({
      store: repos.runEngine,
      pools: c.pools,
      artifacts: c.artifacts,
      metrics: {
        finished: (status, trigger, seconds) => {
          c.metrics.runsTotal.inc({ status, trigger });
          c.metrics.runDuration.observe(seconds);
        },
        rows: (count) => c.metrics.queryRows.observe(count),
      },
      clock: c.clock,
      log,
      timeoutMs: c.settings.runTimeoutSeconds * 1000,
      conditions: judgeCondition,
      deliveries: delivery.deliveryPlanner,
    }),
    scheduling: createScheduling({
      uow: c.uow, store: { ...repos.scheduling, markLost: (runId, error, now, leaseMs) => endLostRun(c.uow, runId, error, now, leaseMs) },
      jobs: createRunJobs(c.queues.runs, runJobSpec),
      log: c.logger.child({ component: 'scheduler' }),
      lag: (seconds) => c.metrics.schedulerLag.set(seconds),
      leaseMs: runLeaseMs(c.settings.workerLockSeconds),
      finished,
    }),
  };
}

/**
 * Configuration as code: export, plan and apply through the resources' own services, in one unit
 * of work; `${env:…}` and `${file:…}` secrets read from this process's environment and files.
 */
export function configServices(
  c: Pick<Container, 'repos' | 'uow' | 'plugins' | 'secretBox' | 'clock' | 'settings' | 'logger'>,
  data: Pick<ReturnType<typeof dataServices>, 'connections' | 'queries' | 'reports'>,
  delivery: Pick<ReturnType<typeof deliveryServices>, 'channels' | 'deliveries'>,
) {
  const config = createConfigService({
      store: c.repos.config, uow: c.uow,
      connections: data.connections, queries: data.queries, reports: data.reports, channels: delivery.channels, deliveries: delivery.deliveries,
      plugins: c.plugins, secrets: c.secretBox, checkSchema: createSchemaCheck(), clock: c.clock,
      secretSources: {
        fileDirs: ['/run/secrets'],
        env: (name) => process.env[name],
        file: (path) => readFile(path, 'utf8').catch(() => undefined),
      },
    });
  const directory = gitopsDirectory(c.settings.gitopsDir);
  return {
    config,
    gitops: createGitopsService({ store: c.repos.config, uow: c.uow, config, directory, clock: c.clock }),
    /** The configuration directory's reconciler (a scheduler tick task), when SVC_GITOPS_DIR is set. */
    reconciler: directory
      ? createReconciler({ directory, config, store: c.repos.config, clock: c.clock, log: c.logger.child({ component: 'gitops' }) })
      : undefined,
  };
}

/**
 * The home page (GET /dashboard): the store's figures through the read model, and the banner from
 * the readiness of the process that answers. Readiness depends on the roles the process runs (its
 * scheduler is made after the services), so the API builds this with its own readiness.
 */
export function dashboardServices(c: Pick<Container, 'repos' | 'clock'>, readiness: () => Promise<Readiness>) {
  return { dashboard: createDashboardService({ readModel: c.repos.dashboard, readiness, clock: c.clock }) };
}

export type ServicesContainer = Parameters<typeof identityServices>[0] & Parameters<typeof dataServices>[0]
  & DeliveryContainer & Parameters<typeof runServices>[0] & Parameters<typeof operationsServices>[0]
  & Parameters<typeof assistantServices>[0];

/** Every service of every feature, built once per process from its container. */
export function createServices(c: ServicesContainer) {
  const delivery = deliveryServices(c);
  const data = dataServices(c);
  const config = configServices(c, data, delivery);
  return {
    ...identityServices(c),
    ...data,
    ...delivery,
    ...runServices(c, delivery),
    ...config,
    ...operationsServices(c, config.reconciler ? { failing: () => config.reconciler!.failures() >= FAILURES_UNHEALTHY } : undefined),
    ...notificationServices(c),
    ...assistantServices(c, data.connections),
  };
}

export type Services = ReturnType<typeof createServices>;
