/** Emailed password-reset links (their token hashes) in the store (the identity domain's PasswordResetsRepo). */
import { and, eq, gt, inArray, isNull, lt } from 'drizzle-orm';
import { passwordResets } from '../schema.js';
import type { Tx } from '../client.js';
import type { PasswordResetsRepo } from '../../../domain/identity/ports.js';

export type PasswordResetRow = typeof passwordResets.$inferSelect;

export function passwordResetsRepo(tx: Tx): PasswordResetsRepo {
  return {
    async insertOnce(row: Omit<PasswordResetRow, 'usedAt'>): Promise<boolean> {
      const stored = await tx.insert(passwordResets).values(row)
        .onConflictDoNothing({ target: passwordResets.tokenHash }).returning({ id: passwordResets.id });
      return stored.length > 0;
    },
    async findUsable(tokenHash: string, now: Date): Promise<PasswordResetRow | undefined> {
      const [row] = await tx.select().from(passwordResets).where(and(
        eq(passwordResets.tokenHash, tokenHash), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, now),
      ));
      return row;
    },
    async claim(id: string, now: Date): Promise<boolean> {
      const rows = await tx.update(passwordResets).set({ usedAt: now })
        .where(and(eq(passwordResets.id, id), isNull(passwordResets.usedAt))).returning({ id: passwordResets.id });
      return rows.length > 0;
    },
    async expireAllOf(userId: string, now: Date): Promise<void> {
      await tx.update(passwordResets).set({ usedAt: now })
        .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
    },
    async deleteExpired(before: Date, batch: number): Promise<number> {
      const dead = tx.select({ id: passwordResets.id }).from(passwordResets).where(lt(passwordResets.expiresAt, before)).limit(batch);
      const rows = await tx.delete(passwordResets).where(inArray(passwordResets.id, dead)).returning({ id: passwordResets.id });
      return rows.length;
    },
  };
}
