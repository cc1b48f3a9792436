/**
 * Operations in the one wiring (createServices, ./services.ts): the alert settings, and the
 * operations tick (system problems, alerts through the channels, the heartbeat), whose lease lets
 * one process of the fleet run it at a time.
 */
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { Container } from './container.js';
import { newId } from '../core/ids.js';
import { ambientDb } from '../infra/db/ambient.js';
import { createStorageProbe } from '../infra/artifacts/storage-probe.js';
import { redisAnswers } from '../infra/queue/queues.js';
import { sentinelProbe } from '../infra/queue/sentinel-probe.js';
import {
  createAdminEmails, createAlertChannelCheck, createLeases, createOpsStatusRepo, createProblemsRepo,
} from '../infra/db/stores/alerts-repo.js';
import { createProblemSnapshotSource } from '../infra/db/stores/problem-snapshot.js';
import { createAlertSettingsService } from '../domain/alerts/alert-settings.js';
import { createAlertSender } from '../domain/alerts/alert-sender.js';
import { createHeartbeat } from '../domain/alerts/heartbeat.js';
import { createOperationsService } from '../domain/alerts/operations-service.js';
import { MAX_RETRY_WAIT_MS, SEND_TIMEOUT_MS } from './send-limits.js';

export function operationsServices(
  c: Pick<Container, 'db' | 'redis' | 'uow' | 'plugins' | 'secretBox' | 'channelHttp' | 'clock' | 'settings' | 'logger' | 'identity' | 'repos' | 'artifactsLocation' | 'startedAt'>,
  gitops: { failing(): boolean } | undefined,
) {
  const log = c.logger.child({ component: 'operations' });
  const db = ambientDb(c.db);
  const problems = createProblemsRepo(db);
  const status = createOpsStatusRepo(db);
  const alertSettings = createAlertSettingsService({
    settings: c.identity.settings, uow: c.uow, channels: createAlertChannelCheck(db), secrets: c.secretBox, clock: c.clock,
    allowsHost: (url) => c.channelHttp.allowsHost(url),
  });
  const sender = createAlertSender({
    channels: c.repos.channels, plugins: c.plugins, adminEmails: createAdminEmails(db), problems, secrets: c.secretBox, http: c.channelHttp,
    clock: c.clock, publicUrl: c.settings.publicUrl, log,
    // The quick retries' waits are real time, even under a test's manual clock (nothing is decided by them).
    sleep: (ms, signal) => delay(ms, undefined, { signal }),
    retry: { sends: c.settings.deliverySends, baseDelayMs: c.settings.deliveryBackoffMs, maxDelayMs: MAX_RETRY_WAIT_MS, sendTimeoutMs: SEND_TIMEOUT_MS },
  });
  const sentinel = sentinelProbe(c.settings.redisUrl);
  const operations = createOperationsService({
    uow: c.uow, problems, status, leases: createLeases(c.db), clock: c.clock, log, startedAt: c.startedAt,
    holder: `${hostname()}:${process.pid}:${newId()}`,
    snapshot: createProblemSnapshotSource(c.db, {
      // Under Sentinel, a primary that is switching is not an outage (readiness says degraded):
      // queue.unavailable opens only once the sentinels' time for a failover has passed.
      redisPing: async () => {
        const answered = await redisAnswers(c.redis);
        sentinel?.observe(answered);
        if (!answered && !(await sentinel?.switching())) throw new Error('Redis does not answer');
      },
      storage: createStorageProbe(c.artifactsLocation),
      ...(gitops ? { gitopsFailing: () => gitops.failing() } : {}),
    }),
    settings: () => alertSettings.withTargets(),
    sender,
    heartbeat: createHeartbeat({ status, http: c.channelHttp, clock: c.clock, log }),
  });
  return { alertSettings, operations, opsStatus: status };
}
