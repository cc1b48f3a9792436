/**
 * The scheduler's tasks, built from the shared container. Due reports → runs → queue will be
 * the essential task when reports land; housekeeping runs hourly.
 */
import type { Container } from './container.js';
import { hourly, type TickTask } from './scheduler.js';
import { purgeDeadIdentityRows } from './domain/identity/housekeeping.js';

export function buildSchedulerTasks(c: Pick<Container, 'settings' | 'identity' | 'logger'>): TickTask[] {
  return [
    hourly('identity housekeeping', async (now) => {
      const purged = await purgeDeadIdentityRows(c.identity, { idleMinutes: c.settings.sessionIdleMinutes }, now);
      if (purged.sessions + purged.passwordResets > 0) c.logger.info('dead sessions and reset links deleted', purged);
    }),
  ];
}
