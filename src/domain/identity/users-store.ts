/** Write-side store functions for users. Each takes the transaction (or database) to run in. */
import { normalizeEmail } from './tokens.js';
import { and, asc, count, eq, gt, or, sql } from 'drizzle-orm';
import { users } from '../../infra/db/schema.js';
import { pgConstraint, pgErrorCode, type Tx } from '../../infra/db/client.js';
import { DomainError, notFound } from '../../core/errors.js';
import { updateVersioned } from '../../infra/db/versioned.js';
import { decodeStringCursor, toPage, type Page } from '../../core/cursor.js';
import type { Role } from './principal.js';

export type UserRow = typeof users.$inferSelect;

export async function findUser(tx: Tx, id: string): Promise<UserRow | undefined> {
  const [row] = await tx.select().from(users).where(eq(users.id, id));
  return row;
}

export async function getUser(tx: Tx, id: string): Promise<UserRow> {
  const row = await findUser(tx, id);
  if (!row) throw notFound('user');
  return row;
}

/**
 * The account of an address. The address is normalised here, in one place (normalizeEmail), and
 * compared with lower(email) (the unique index): an account is reached by exactly one normalised
 * spelling, the same one the sign-in throttle counts under.
 */
export async function findUserByEmail(tx: Tx, email: string): Promise<UserRow | undefined> {
  const [row] = await tx.select().from(users).where(sql`lower(${users.email}) = ${normalizeEmail(email)}`);
  return row;
}

export async function countUsers(tx: Tx): Promise<number> {
  const [row] = await tx.select({ n: count() }).from(users);
  return row?.n ?? 0;
}

export interface NewUser {
  id: string;
  name: string;
  email: string;
  role: Role;
  passwordHash: string;
  mustChangePassword: boolean;
  /** Set when creating the user also signs it in (first-run setup). */
  lastSignInAt?: Date;
}

export async function insertUser(tx: Tx, u: NewUser): Promise<UserRow> {
  try {
    const [row] = await tx.insert(users).values({ ...u, email: u.email.trim(), passwordChangedAt: new Date() }).returning();
    return row!;
  } catch (err) {
    if (pgErrorCode(err) === '23505' && pgConstraint(err) === 'users_email_key') {
      throw new DomainError('validation.failed', 'A user with this email exists', {
        errors: [{ field: 'email', code: 'validation.unique', message: 'is already used by another user' }],
      });
    }
    throw err;
  }
}

/** Applies changes if `version` is current (or always, when undefined); bumps version and updated_at. */
export function updateUserVersioned(
  tx: Tx, id: string, version: number | undefined, changes: Partial<typeof users.$inferInsert>,
): Promise<UserRow> {
  return updateVersioned(tx, users, id, version, changes, 'user');
}

/** Enabled admins, locked for the rest of the transaction (serialises last-admin checks). */
export async function lockEnabledAdmins(tx: Tx): Promise<string[]> {
  const rows = await tx.select({ id: users.id }).from(users)
    .where(and(eq(users.role, 'admin'), eq(users.enabled, true))).for('update');
  return rows.map((r) => r.id);
}

export async function listUsers(tx: Tx, q: { limit: number; cursor?: string }): Promise<Page<UserRow>> {
  let where;
  if (q.cursor) {
    const [name, id] = decodeStringCursor(q.cursor, 2);
    where = or(gt(users.name, name!), and(eq(users.name, name!), gt(users.id, id!)));
  }
  const rows = await tx.select().from(users).where(where).orderBy(asc(users.name), asc(users.id)).limit(q.limit + 1);
  return toPage(rows, q.limit, (r) => [r.name, r.id], (r) => r);
}
