/**
 * The worker's job list: every job type of the catalog with the services it needs, from the one
 * wiring (src/main/services.ts). A feature adds its job types here, one line each.
 */
import type { Container } from './container.js';
import type { Services } from './services.js';
import { jobCatalog, type JobCatalog } from '../jobs/catalog.js';
import { passwordResetMailJob } from '../jobs/password-reset-mail.js';
import { createActiveRuns, runReportJob } from '../jobs/run-report.js';
import { endLostRun } from '../domain/runs/lost-runs.js';
import { deliverJob } from '../jobs/deliver.js';

type WorkerContainer = Pick<Container, 'settings' | 'uow' | 'identity' | 'clock' | 'events' | 'metrics' | 'logger'>;
type WorkerServices = Pick<Services, 'mailer' | 'engine' | 'deliveryWorker'>;

export function buildJobCatalog(c: WorkerContainer, services: WorkerServices): JobCatalog {
  // The run's work this process holds (its query, its deliveries), stopped when the run is cancelled.
  const active = cancellableRuns(c);
  return jobCatalog([
    passwordResetMailJob({
      store: c.identity,
      uow: c.uow,
      mailer: services.mailer,
      publicUrl: c.settings.publicUrl,
      secretKey: c.settings.keys.hmac,
      clock: c.clock,
    }),
    runJob(c, services, active),
    deliverJob({ worker: services.deliveryWorker, active }),
  ]);
}

/** A cancellation asked for on any API process reaches the worker holding the run's work. */
function cancellableRuns(c: WorkerContainer) {
  const log = c.logger.child({ component: 'runs' });
  const active = createActiveRuns();
  c.events.subscribe((e) => {
    if (e.type === 'run.cancel' && typeof e.data.id === 'string' && active.cancel(e.data.id)) {
      log.info('run cancellation received', { run_id: e.data.id, report_id: e.data.report_id });
    }
  }).catch((err: unknown) => log.warn('cancellations are not received (the engine still polls for them)', { err }));
  return active;
}

/** The run job: the engine, the runs this process holds (to cancel them), and the lost-run record. */
function runJob(c: WorkerContainer, services: WorkerServices, active: ReturnType<typeof createActiveRuns>) {
  const log = c.logger.child({ component: 'runs' });
  return runReportJob({
    engine: services.engine,
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
