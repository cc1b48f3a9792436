/**
 * The signed-in user's notifications (GET /notifications, POST …/{id}/read, POST …/read-all):
 * only ever the caller's own; another user's id is not found, never forbidden (that would tell it
 * exists). An API key acts as its owner.
 */
import type { Clock } from '../../core/clock.js';
import { notFound } from '../../core/errors.js';
import type { PageRequest } from '../../core/cursor.js';
import type { NotificationsRepo } from './ports.js';
import type { NotificationRecord } from './model.js';

export function createNotificationsService(deps: {
  /** Reads; changes go through the unit of work. */
  store: Pick<NotificationsRepo, 'list' | 'unreadCount'>;
  uow: { run<T>(work: (tx: { notifications: Pick<NotificationsRepo, 'markRead' | 'markAllRead' | 'unreadCount'> }) => Promise<T>): Promise<T> };
  clock: Clock;
}) {
  return {
    /** Newest first (by when the cause last happened), with the number still unread. */
    async list(userId: string, filter: { unread?: boolean | undefined }, page: PageRequest) {
      const [found, unreadCount] = await Promise.all([deps.store.list(userId, filter, page), deps.store.unreadCount(userId)]);
      return { ...found, unreadCount };
    },

    /** Marks one of the user's notifications read; a read one is answered as it is. */
    async markRead(userId: string, id: string): Promise<NotificationRecord> {
      const marked = await deps.uow.run((tx) => tx.notifications.markRead(userId, id, deps.clock.now()));
      if (!marked) throw notFound('notification');
      return marked;
    },

    /** Marks the user's unread notifications read (with `before`, those whose cause happened before it). */
    async markAllRead(userId: string, before?: Date): Promise<{ marked: number; unreadCount: number }> {
      return deps.uow.run(async (tx) => {
        const marked = await tx.notifications.markAllRead(userId, before, deps.clock.now());
        return { marked, unreadCount: await tx.notifications.unreadCount(userId) };
      });
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
