/**
 * The scheduler's tasks, built from the shared container: due reports → runs → queue (essential:
 * a failure makes the tick count as not completed), the sweep of runs whose job went missing
 * (every 30 s), and hourly housekeeping.
 */
import type { Container } from './container.js';
import { hourly, type TickTask } from './scheduler.js';
import { purgeDeadIdentityRows } from '../domain/identity/housekeeping.js';
import { createRunsRepo } from '../infra/db/stores/runs-repo.js';
import { IDEMPOTENCY_WINDOW_MS } from '../domain/runs/runs-service.js';
import { createScheduling, runLeaseMs } from '../domain/runs/scheduling.js';
import { createSchedulingRepo } from '../infra/db/stores/scheduling-repo.js';
import { endLostRun } from '../domain/runs/lost-runs.js';
import { createRunJobs } from '../infra/queue/run-jobs.js';
import { runJobSpec } from '../jobs/run-report-spec.js';
import { createAttemptsRepo } from '../infra/db/stores/channels-repo.js';
import { resendJobSpec } from '../jobs/resend-delivery.js';
import type { Enqueue } from '../jobs/catalog.js';
import { createRetention } from '../domain/results/retention.js';
import { createStorageRepo } from '../infra/db/stores/storage-repo.js';
import { createEventLog } from '../infra/db/stores/events-repo.js';

/** How often the sweep looks for runs whose job went missing. */
const SWEEP_EVERY_MS = 30_000;
/** A resend queued this long ago without a worker taking it has lost its job. */
const RESEND_STUCK_MS = 2 * 60_000;
/** A resend sending this long (past its job's 10-minute limit) has lost its worker. */
const SENDING_STUCK_MS = 15 * 60_000;

export function buildSchedulerTasks(c: Pick<Container, 'settings' | 'uow' | 'identity' | 'logger' | 'db' | 'sql' | 'queues' | 'events' | 'metrics' | 'artifacts'> & { enqueue: Enqueue }): TickTask[] {
  const runsRepo = createRunsRepo(c.db);
  const log = c.logger.child({ component: 'scheduler' });
  const scheduling = createScheduling({
    store: { ...createSchedulingRepo(c.sql, c.db), markLost: (runId, error, now, leaseMs) => endLostRun(c.uow, runId, error, now, leaseMs) },
    jobs: createRunJobs(c.queues.runs, runJobSpec),
    log,
    lag: (seconds) => c.metrics.schedulerLag.set(seconds),
    leaseMs: runLeaseMs(c.settings.workerLockSeconds),
    finished: (status, trigger) => c.metrics.runsTotal.inc({ status, trigger }),
  });
  const attempts = createAttemptsRepo(c.db);
  let sweepDue = 0;
  return [
    {
      name: 'due reports',
      essential: true,
      async run(now) {
        const made = await scheduling.tick(now);
        if (made > 0) log.info('due reports queued', { runs: made });
      },
    },
    {
      name: 'run sweep',
      essential: false,
      async run(now) {
        if (now.getTime() < sweepDue) return;
        sweepDue = now.getTime() + SWEEP_EVERY_MS;
        const swept = await scheduling.sweep(now);
        if (swept.requeued + swept.lost > 0) log.warn('runs swept', swept);
        // Delivery resends whose job went missing (Redis lost it, or the enqueue failed).
        const stuck = await attempts.stuckResends(new Date(now.getTime() - RESEND_STUCK_MS), new Date(now.getTime() - SENDING_STUCK_MS), now);
        for (const a of stuck.queued) {
          // One job id per sweep window: a job still waiting is not added twice within it.
          await c.enqueue(resendJobSpec, { attemptId: a.id, runId: a.runId }, { jobId: `resend-${a.id}-sweep-${Math.floor(now.getTime() / RESEND_STUCK_MS)}` });
        }
        if (stuck.queued.length + stuck.lost > 0) log.warn('delivery resends swept', { requeued: stuck.queued.length, lost: stuck.lost });
      },
    },
    hourly('identity housekeeping', async (now) => {
      const purged = await purgeDeadIdentityRows(c.identity, { idleMinutes: c.settings.sessionIdleMinutes }, now);
      if (purged.sessions + purged.passwordResets > 0) c.logger.info('dead sessions and reset links deleted', purged);
    }),
    hourly('result retention', async (now) => {
      await createRetention({ store: createStorageRepo(c.db), artifacts: c.artifacts, days: c.settings.resultRetentionDays, log }).sweep(now);
    }),
    hourly('event retention', async (now) => {
      const purged = await createEventLog(c.db).purge(new Date(now.getTime() - c.settings.eventsRetentionHours * 3600_000));
      if (purged > 0) c.logger.info('events past their retention deleted', { count: purged });
    }),
    hourly('idempotency keys', async (now) => {
      const purged = await runsRepo.purgeIdempotencyKeys(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS));
      if (purged > 0) c.logger.info('expired idempotency keys deleted', { count: purged });
    }),
  ];
}
