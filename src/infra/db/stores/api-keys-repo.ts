/** API keys in the store (the identity domain's ApiKeysRepo). */
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { apiKeys, users } from '../schema.js';
import type { Tx } from '../client.js';
import { decodeStringCursor, toPage, type Page, type PageRequest } from '../../../core/cursor.js';
import type { ApiKeysRepo } from '../../../domain/identity/ports.js';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function apiKeysRepo(tx: Tx): ApiKeysRepo {
  return {
    async insert(key: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
      const [row] = await tx.insert(apiKeys).values(key).returning();
      return row!;
    },
    async findWithOwner(tokenHash: string) {
      const [row] = await tx.select({
        id: apiKeys.id, scope: apiKeys.scope, lastUsedAt: apiKeys.lastUsedAt, revokedAt: apiKeys.revokedAt, expiresAt: apiKeys.expiresAt,
        userId: users.id, name: users.name, role: users.role, enabled: users.enabled,
      }).from(apiKeys).innerJoin(users, eq(users.id, apiKeys.userId)).where(eq(apiKeys.tokenHash, tokenHash));
      return row;
    },
    async touch(id: string, now: Date): Promise<void> {
      await tx.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, id));
    },
    async revoke(id: string, now: Date): Promise<ApiKeyRow | undefined> {
      const [row] = await tx.update(apiKeys).set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${now.toISOString()}::timestamptz)` })
        .where(eq(apiKeys.id, id)).returning();
      return row;
    },
    async list(q: PageRequest & { ownerId?: string | undefined }): Promise<Page<ApiKeyRow>> {
      const conditions = [];
      if (q.ownerId) conditions.push(eq(apiKeys.userId, q.ownerId));
      if (q.cursor) conditions.push(lt(apiKeys.id, decodeStringCursor(q.cursor, 1)[0]!));
      const rows = await tx.select().from(apiKeys).where(and(...conditions)).orderBy(desc(apiKeys.id)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.id], (r) => r);
    },
  };
}
