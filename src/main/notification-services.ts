/**
 * In-app notifications in the one wiring (createServices, ./services.ts): the API's reads and
 * marks, and the notifier the scheduler runs as a task (./scheduler-tasks.ts).
 */
import type { Container } from './container.js';
import { createNotificationsService } from '../domain/notifications/notifications-service.js';
import { createNotifier } from '../domain/notifications/notifier.js';

export function notificationServices(c: Pick<Container, 'repos' | 'uow' | 'clock' | 'eventHistory'>) {
  return {
    notifications: createNotificationsService({ store: c.repos.notifications, uow: c.uow, clock: c.clock }),
    notifier: createNotifier({ uow: c.uow, history: c.eventHistory, clock: c.clock }),
  };
}
