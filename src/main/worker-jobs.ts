/**
 * The worker's job list: every job type of the catalog with the services it needs, built from
 * the shared container. A feature adds its job types here, one line each.
 */
import type { Container } from './container.js';
import { jobCatalog, type JobCatalog } from '../jobs/catalog.js';
import { createMailer } from '../infra/mail/mailer.js';
import { passwordResetMailJob } from '../jobs/password-reset-mail.js';
import { createActiveRuns, runReportJob } from '../jobs/run-report.js';
import { createRunEngine } from '../domain/runs/run-engine.js';
import { judgeCondition } from '../domain/reports/condition.js';
import { createRunEngineRepo } from '../infra/db/stores/run-engine-repo.js';
import { endLostRun } from '../domain/runs/lost-runs.js';
import { createResendWorker } from '../domain/deliveries/retry-service.js';
import { resendDeliveryJob } from '../jobs/resend-delivery.js';
import { deliveryParts, type DeliveryParts } from './delivery-parts.js';

type WorkerContainer = Pick<Container, 'settings' | 'uow' | 'identity' | 'clock' | 'db' | 'pools' | 'artifacts' | 'events' | 'metrics' | 'logger' | 'plugins' | 'secretBox' | 'channelHttp'>;

export function buildJobCatalog(c: WorkerContainer): JobCatalog {
  const parts = deliveryParts(c);
  return jobCatalog([
    passwordResetMailJob({
      store: c.identity,
      mailer: createMailer(c.settings.smtpUrl, c.settings.mailFrom),
      publicUrl: c.settings.publicUrl,
      secretKey: c.settings.keys.hmac,
      clock: c.clock,
    }),
    runJob(c, parts),
    resendDeliveryJob(createResendWorker({
      attempts: parts.attempts, runs: parts.runs, context: parts.context, sender: parts.sender, events: c.events, clock: c.clock,
      log: c.logger.child({ component: 'deliveries' }),
    })),
  ]);
}

/** The run job: the engine, the runs this process holds (to cancel them), and the lost-run record. */
function runJob(c: WorkerContainer, parts: DeliveryParts) {
  const store = createRunEngineRepo(c.db);
  const log = c.logger.child({ component: 'runs' });
  const engine = createRunEngine({
    store,
    uow: c.uow,
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
    deliveries: parts.sender,
  });
  const active = createActiveRuns();
  // A cancellation asked for on any API process reaches the worker holding the run.
  c.events.subscribe((e) => {
    if (e.type === 'run.cancel' && typeof e.data.id === 'string' && active.cancel(e.data.id)) {
      log.info('run cancellation received', { run_id: e.data.id, report_id: e.data.report_id });
    }
  }).catch((err: unknown) => log.warn('cancellations are not received (the engine still polls for them)', { err }));
  return runReportJob({
    engine,
    timeoutMs: c.settings.runTimeoutSeconds * 1000,
    active,
    async markLost(runId, error) {
      // The run ends failed, with the deliveries its worker left sending and its events (one unit of work).
      const run = await endLostRun(c.uow, runId, error, c.clock.now());
      if (!run) return;
      log.error('run failed for good', { run_id: run.id, report_id: run.reportId, error_code: error.code, error: error.message });
      c.metrics.runsTotal.inc({ status: 'failed', trigger: run.trigger });
      if (run.startedAt && run.finishedAt) c.metrics.runDuration.observe(Math.max(0, (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000));
    },
  });
}
