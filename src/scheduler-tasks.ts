/**
 * The scheduler's tasks, built from the shared container. Due reports → runs → queue will be
 * the essential task when reports land; housekeeping runs hourly.
 */
import type { Container } from './container.js';
import { hourly, type TickTask } from './scheduler.js';
import { purgeDeadIdentityRows } from './domain/identity/housekeeping.js';
import { createRunsRepo } from './infra/db/stores/runs-repo.js';
import { IDEMPOTENCY_WINDOW_MS } from './domain/runs/runs-service.js';

export function buildSchedulerTasks(c: Pick<Container, 'settings' | 'identity' | 'logger' | 'db'>): TickTask[] {
  const runsRepo = createRunsRepo(c.db);
  return [
    hourly('identity housekeeping', async (now) => {
      const purged = await purgeDeadIdentityRows(c.identity, { idleMinutes: c.settings.sessionIdleMinutes }, now);
      if (purged.sessions + purged.passwordResets > 0) c.logger.info('dead sessions and reset links deleted', purged);
    }),
    hourly('idempotency keys', async (now) => {
      const purged = await runsRepo.purgeIdempotencyKeys(new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS));
      if (purged > 0) c.logger.info('expired idempotency keys deleted', { count: purged });
    }),
  ];
}
