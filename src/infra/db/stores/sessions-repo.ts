/** Browser sessions in the store (the identity domain's SessionsRepo). */
import { and, desc, eq, gt, inArray, isNotNull, isNull, lt, ne, or } from 'drizzle-orm';
import { sessions, users } from '../schema.js';
import type { Tx } from '../client.js';
import type { SessionsRepo } from '../../../domain/identity/ports.js';

export type SessionRow = typeof sessions.$inferSelect;

export function sessionsRepo(tx: Tx): SessionsRepo {
  return {
    async insert(row: Omit<SessionRow, 'revokedAt'>): Promise<void> {
      await tx.insert(sessions).values(row);
    },
    async findLive(tokenHash: string, now: Date, idleSince: Date) {
      const [row] = await tx.select({
        id: sessions.id, lastSeenAt: sessions.lastSeenAt,
        userId: users.id, name: users.name, role: users.role, mustChangePassword: users.mustChangePassword,
        mustEnrol: sessions.mustEnrol, expiresAt: sessions.expiresAt,
      }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(and(
        eq(sessions.tokenHash, tokenHash),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, now),
        gt(sessions.lastSeenAt, idleSince),
        eq(users.enabled, true),
      ));
      return row;
    },
    async touch(id: string, now: Date): Promise<void> {
      await tx.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, id));
    },
    listActive(userId: string, now: Date, idleSince: Date): Promise<SessionRow[]> {
      return tx.select().from(sessions).where(and(
        eq(sessions.userId, userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, now), gt(sessions.lastSeenAt, idleSince),
      )).orderBy(desc(sessions.createdAt));
    },
    /** The user now has a second factor: no session of theirs waits for enrolment any more. */
    async clearMustEnrol(userId: string): Promise<void> {
      await tx.update(sessions).set({ mustEnrol: false }).where(and(eq(sessions.userId, userId), eq(sessions.mustEnrol, true)));
    },
    async revoke(userId: string, sessionId: string, now: Date): Promise<boolean> {
      const rows = await tx.update(sessions).set({ revokedAt: now })
        .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      return rows.length > 0;
    },
    async revokeAllOf(userId: string, now: Date, keep?: string): Promise<number> {
      const rows = await tx.update(sessions).set({ revokedAt: now })
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), keep ? ne(sessions.id, keep) : undefined))
        .returning({ id: sessions.id });
      return rows.length;
    },
    async revokeByTokenHash(tokenHash: string, now: Date): Promise<string | undefined> {
      const [row] = await tx.update(sessions).set({ revokedAt: now })
        .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt)))
        .returning({ userId: sessions.userId });
      return row?.userId;
    },
    async deleteDead(deadBefore: Date, idleBefore: Date, batch: number): Promise<number> {
      const dead = tx.select({ id: sessions.id }).from(sessions).where(or(
        and(isNotNull(sessions.revokedAt), lt(sessions.revokedAt, deadBefore)),
        lt(sessions.expiresAt, deadBefore),
        lt(sessions.lastSeenAt, idleBefore),
      )).limit(batch);
      const rows = await tx.delete(sessions).where(inArray(sessions.id, dead)).returning({ id: sessions.id });
      return rows.length;
    },
  };
}
