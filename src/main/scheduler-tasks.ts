/**
 * The scheduler's tasks, built from the shared container: due reports → runs → queue (essential:
 * a failure makes the tick count as not completed), the sweep of runs whose job went missing
 * (every 30 s), the features' events turned into in-app notifications, hourly housekeeping, and
 * the reconcile of the configuration directory (SVC_GITOPS_DIR) first, so a report it defines is
 * there when the due reports are claimed.
 */
import type { Container } from './container.js';
import type { Services } from './services.js';
import { hourly, type TickTask } from './scheduler.js';
import { purgeDeadIdentityRows } from '../domain/sign-in/housekeeping.js';
import { IDEMPOTENCY_WINDOW_MS } from '../domain/runs/runs-service.js';

/** How often the sweep looks for runs and deliveries whose job went missing. */
const SWEEP_EVERY_MS = 30_000;

export function buildSchedulerTasks(
  c: Pick<Container, 'settings' | 'repos' | 'identity' | 'logger'>,
  services: Pick<Services, 'scheduling' | 'retention' | 'sweepDeliveries' | 'reconciler' | 'operations' | 'opsStatus' | 'notifier'>,
  /** This process's readiness (the heartbeat calls only while every component is ok). */
  readiness: () => Promise<{ healthy: boolean; reason: string | null }> = async () => ({ healthy: true, reason: null }),
): TickTask[] {
  const { repos } = c;
  const { scheduling } = services;
  const log = c.logger.child({ component: 'scheduler' });
  let sweepDue = 0;
  const gitops: TickTask[] = services.reconciler ? [{
    // At start, when the directory's files change or after a detach/attach, and every minute anyway;
    // its failures are its own readiness component's (gitops), not the scheduler's.
    name: 'gitops reconcile',
    essential: false,
    async run(now) {
      await services.reconciler!.tick(now);
    },
  }] : [];
  return [
    ...gitops,
    {
      name: 'due reports',
      essential: true,
      async run(now) {
        const started = performance.now();
        const made = await scheduling.tick(now);
        if (made > 0) log.info('due reports queued', { runs: made, ms: Math.round(performance.now() - started) });
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
        // Deliveries whose job went missing (Redis lost it, an enqueue after a commit failed), automatic retries overdue.
        await services.sweepDeliveries(now);
      },
    },
    {
      // System problems and alerts, and the heartbeat: one process of the fleet at a time (a lease).
      name: 'operations',
      essential: false,
      async run(now) {
        await services.operations.tick(now, readiness);
      },
    },
    {
      // The features' events become in-app notifications (each once, whichever scheduler takes it).
      name: 'notifications',
      essential: false,
      async run() {
        // Half a tick at most: behind a minute of many scheduled runs, the next due reports come first.
        const done = await services.notifier.run(c.settings.schedulerTickSeconds * 500);
        if (done.notified > 0) log.info('notifications written', { ...done });
      },
    },
    hourly('identity housekeeping', async (now) => {
      const purged = await purgeDeadIdentityRows(c.identity, { idleMinutes: c.settings.sessionIdleMinutes }, now);
      if (purged.sessions + purged.passwordResets > 0) c.logger.info('dead sessions and reset links deleted', purged);
    }),
    hourly('result retention', async (now) => {
      // Its outcome is kept for the problems' retention.failing (whichever process evaluates them).
      try {
        await services.retention.sweep(now);
        await services.opsStatus.put('retention', { failing: false, error: null, since: null }, now);
      } catch (err) {
        const before = await services.opsStatus.get('retention').catch(() => undefined);
        await services.opsStatus.put('retention', {
          failing: true, error: String((err as Error)?.message ?? err).slice(0, 300),
          since: before?.failing === true ? before.since : now.toISOString(),
        }, now).catch(() => undefined);
        throw err;
      }
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
