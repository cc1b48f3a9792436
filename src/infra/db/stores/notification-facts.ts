/** What the notification rules read (the notifications domain's NotificationFacts): runs, channels, keys and users. */
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { apiKeys, channels, deliveries, reports, runs, users } from '../schema.js';
import type { Tx } from '../client.js';
import type { NotificationFacts } from '../../../domain/notifications/ports.js';

const recipient = { id: users.id, role: users.role, enabled: users.enabled };

export function createNotificationFacts(db: Tx): NotificationFacts {
  return {
    async run(id) {
      const [r] = await db.select({
        id: runs.id, reportId: runs.reportId, reportTitle: reports.title, ownerId: reports.ownerId, createdBy: runs.createdBy,
        finishedAt: runs.finishedAt, errorCode: runs.errorCode, errorMessage: runs.errorMessage,
      }).from(runs).innerJoin(reports, eq(reports.id, runs.reportId)).where(eq(runs.id, id));
      if (!r) return undefined;
      const { errorCode, errorMessage, ...run } = r;
      return { ...run, error: errorCode ? { code: errorCode, message: errorMessage ?? '' } : null };
    },

    async channel(id) {
      const [c] = await db.select({ id: channels.id, name: channels.name, lastError: channels.lastError }).from(channels).where(eq(channels.id, id));
      if (!c) return undefined;
      const owners = await db.selectDistinct({ ownerId: reports.ownerId }).from(deliveries).innerJoin(reports, eq(reports.id, deliveries.reportId))
        .where(and(eq(deliveries.channelId, id), isNotNull(reports.ownerId)));
      return {
        id: c.id, name: c.name, lastError: c.lastError ? { code: c.lastError.code, message: c.lastError.message } : null,
        reportOwnerIds: owners.map((o) => o.ownerId!),
      };
    },

    async apiKeyOwner(keyId) {
      const [k] = await db.select({ userId: apiKeys.userId }).from(apiKeys).where(eq(apiKeys.id, keyId));
      return k?.userId;
    },

    async users(ids) {
      if (ids.length === 0) return [];
      return db.select(recipient).from(users).where(inArray(users.id, [...ids]));
    },

    async admins() {
      return db.select(recipient).from(users).where(eq(users.role, 'admin'));
    },
  };
}
