/** Users in the store (the identity domain's UsersRepo). */
import { and, asc, count, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { users } from '../schema.js';
import { pgConstraint, pgErrorCode, type Tx } from '../client.js';
import { updateVersioned } from '../versioned.js';
import { DomainError, notFound } from '../../../core/errors.js';
import { decodeStringCursor, toPage, type Page, type PageRequest } from '../../../core/cursor.js';
import type { UsersRepo } from '../../../domain/identity/ports.js';

export type UserRow = typeof users.$inferSelect;
type UserInsert = typeof users.$inferInsert;

export function usersRepo(tx: Tx): UsersRepo {
  return {
    async find(id: string): Promise<UserRow | undefined> {
      const [row] = await tx.select().from(users).where(eq(users.id, id));
      return row;
    },
    async findByEmail(normalizedEmail: string): Promise<UserRow | undefined> {
      const [row] = await tx.select().from(users).where(sql`lower(${users.email}) = ${normalizedEmail}`);
      return row;
    },
    async count(): Promise<number> {
      const [row] = await tx.select({ n: count() }).from(users);
      return row?.n ?? 0;
    },
    async insert(u: UserInsert): Promise<UserRow> {
      try {
        const [row] = await tx.insert(users).values({ ...u, email: u.email.trim() }).returning();
        return row!;
      } catch (err) {
        if (pgErrorCode(err) === '23505' && pgConstraint(err) === 'users_email_key') {
          throw new DomainError('validation.failed', 'A user with this email exists', {
            errors: [{ field: 'email', code: 'validation.unique', message: 'is already used by another user' }],
          });
        }
        throw err;
      }
    },
    update(id: string, version: number | undefined, changes: Partial<UserInsert>, now: Date): Promise<UserRow> {
      return updateVersioned(tx, users, id, version, changes, 'user', now);
    },
    async markSignedIn(id: string, at: Date): Promise<UserRow> {
      const [row] = await tx.update(users).set({ lastSignInAt: at }).where(eq(users.id, id)).returning();
      if (!row) throw notFound('user');
      return row;
    },
    /**
     * Accepts an authenticator code's time step once: true when it is later than the last accepted
     * one (and is now the last), false for a replay. Not a change of the user (no version bump).
     */
    async acceptTotpStep(id: string, step: number): Promise<boolean> {
      const rows = await tx.update(users).set({ totpLastStep: step })
        .where(and(eq(users.id, id), or(isNull(users.totpLastStep), lt(users.totpLastStep, step)))).returning({ id: users.id });
      return rows.length > 0;
    },
    async lockEnabledAdmins(): Promise<string[]> {
      const rows = await tx.select({ id: users.id }).from(users)
        .where(and(eq(users.role, 'admin'), eq(users.enabled, true))).for('update');
      return rows.map((r) => r.id);
    },
    async list(q: PageRequest): Promise<Page<UserRow>> {
      let where;
      if (q.cursor) {
        const [name, id] = decodeStringCursor(q.cursor, 2);
        where = or(gt(users.name, name!), and(eq(users.name, name!), gt(users.id, id!)));
      }
      const rows = await tx.select().from(users).where(where).orderBy(asc(users.name), asc(users.id)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.name, r.id], (r) => r);
    },
  };
}
