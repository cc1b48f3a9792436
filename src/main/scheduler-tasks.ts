/**
 * The scheduler's tasks, built from the shared container: due reports → runs → queue (essential:
 * a failure makes the tick count as not completed), the sweep of runs whose job went missing
 * (every 30 s), and hourly housekeeping.
 */
import type { Container } from './container.js';
import type { Services } from './services.js';
import { hourly, type TickTask } from './scheduler.js';
import { purgeDeadIdentityRows } from '../domain/sign-in/housekeeping.js';
import { IDEMPOTENCY_WINDOW_MS } from '../domain/runs/runs-service.js';
import { resendJobSpec } from '../jobs/resend-delivery.js';

/** How often the sweep looks for runs whose job went missing. */
const SWEEP_EVERY_MS = 30_000;
/** A resend queued this long ago without a worker taking it has lost its job. */
const RESEND_STUCK_MS = 2 * 60_000;
/** A resend sending this long (past its job's 10-minute limit) has lost its worker. */
const SENDING_STUCK_MS = 15 * 60_000;

export function buildSchedulerTasks(
  c: Pick<Container, 'settings' | 'repos' | 'identity' | 'logger' | 'enqueue'>, services: Pick<Services, 'scheduling' | 'retention'>,
): TickTask[] {
  const { repos, enqueue } = c;
  const { scheduling } = services;
  const log = c.logger.child({ component: 'scheduler' });
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
        const stuck = await repos.attempts.stuckResends(new Date(now.getTime() - RESEND_STUCK_MS), new Date(now.getTime() - SENDING_STUCK_MS), now);
        for (const a of stuck.queued) {
          // One job id per sweep window: a job still waiting is not added twice within it.
          await enqueue(resendJobSpec, { attemptId: a.id, runId: a.runId }, { jobId: `resend-${a.id}-sweep-${Math.floor(now.getTime() / RESEND_STUCK_MS)}` });
        }
        if (stuck.queued.length + stuck.lost > 0) log.warn('delivery resends swept', { requeued: stuck.queued.length, lost: stuck.lost });
      },
    },
    hourly('identity housekeeping', async (now) => {
      const purged = await purgeDeadIdentityRows(c.identity, { idleMinutes: c.settings.sessionIdleMinutes }, now);
      if (purged.sessions + purged.passwordResets > 0) c.logger.info('dead sessions and reset links deleted', purged);
    }),
    hourly('result retention', async (now) => {
      await services.retention.sweep(now);
    }),
    hourly('event retention', async (now) => {
      const purged = await repos.events.purge(new Date(now.getTime() - c.settings.eventsRetentionHours * 3600_000));
      if (purged > 0) c.logger.info('events past their retention deleted', { count: purged });
    }),
    hourly('idempotency keys', async (now) => {
      const purged = await repos.runs.purgeIdempotencyKeys(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS));
      if (purged > 0) c.logger.info('expired idempotency keys deleted', { count: purged });
    }),
  ];
}
