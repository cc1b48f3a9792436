/** The audit trail in the store (the identity domain's SecurityEventsRepo). */
import { and, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import { securityEvents } from '../schema.js';
import type { Tx } from '../client.js';
import { decodeStringCursor, toPage, type Page, type PageRequest } from '../../../core/cursor.js';
import type { SecurityEventsRepo } from '../../../domain/identity/ports.js';

export type SecurityEventRow = typeof securityEvents.$inferSelect;

export function securityEventsRepo(tx: Tx): SecurityEventsRepo {
  return {
    async insert(row: SecurityEventRow): Promise<void> {
      await tx.insert(securityEvents).values(row);
    },
    async list(q: PageRequest & { type?: string | undefined; userId?: string | undefined }): Promise<Page<SecurityEventRow>> {
      const conditions: SQL[] = [];
      if (q.type) conditions.push(eq(securityEvents.type, q.type));
      if (q.userId) conditions.push(or(eq(securityEvents.subjectUserId, q.userId), eq(securityEvents.actorUserId, q.userId))!);
      if (q.cursor) conditions.push(lt(securityEvents.id, decodeStringCursor(q.cursor, 1)[0]!));
      // UUIDv7 ids increase with time, so id order is newest-first order.
      const rows = await tx.select().from(securityEvents).where(and(...conditions))
        .orderBy(desc(securityEvents.id)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.id], (r) => r);
    },
  };
}
