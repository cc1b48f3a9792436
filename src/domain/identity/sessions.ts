/**
 * Browser sessions: a random token in the svc_session cookie, stored as a hash, with idle and
 * absolute expiry; the CSRF token is derived from it. Revocation takes effect on the next request.
 */
import { and, desc, eq, gt, isNull, ne } from 'drizzle-orm';
import { sessions, users } from '../../infra/db/schema.js';
import type { Tx } from '../../infra/db/client.js';
import { newId } from '../../core/ids.js';
import { notFound } from '../../core/errors.js';
import { csrfTokenFor, randomToken, tokenHash } from './tokens.js';
import type { PrincipalUser, Role } from './principal.js';

export interface SessionPolicy {
  idleMinutes: number;
  maxHours: number;
  secretKey: Buffer;
}

export type SessionMethod = 'password' | 'setup' | 'passkey' | 'oidc';

export interface IssuedSession {
  id: string;
  token: string;
  csrfToken: string;
  maxAgeSeconds: number;
}

export async function issueSession(
  tx: Tx, policy: SessionPolicy, input: { userId: string; method: SessionMethod; ip: string; userAgent?: string | undefined },
): Promise<IssuedSession> {
  const token = randomToken();
  const id = newId();
  const now = new Date();
  await tx.insert(sessions).values({
    id,
    userId: input.userId,
    tokenHash: tokenHash(token),
    method: input.method,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + policy.maxHours * 3600_000),
    ip: input.ip || null,
    userAgent: input.userAgent?.slice(0, 512) ?? null,
  });
  return { id, token, csrfToken: csrfTokenFor(policy.secretKey, token), maxAgeSeconds: policy.maxHours * 3600 };
}

export interface ActiveSession {
  sessionId: string;
  csrfToken: string;
  user: PrincipalUser;
}

/** The live session of a token, or undefined when unknown, revoked, expired or its user disabled. */
export async function resolveSession(tx: Tx, policy: SessionPolicy, token: string): Promise<ActiveSession | undefined> {
  const now = new Date();
  const idleCutoff = new Date(now.getTime() - policy.idleMinutes * 60_000);
  const [row] = await tx.select({
    id: sessions.id, lastSeenAt: sessions.lastSeenAt,
    userId: users.id, name: users.name, role: users.role, mustChangePassword: users.mustChangePassword,
  }).from(sessions).innerJoin(users, eq(users.id, sessions.userId)).where(and(
    eq(sessions.tokenHash, tokenHash(token)),
    isNull(sessions.revokedAt),
    gt(sessions.expiresAt, now),
    gt(sessions.lastSeenAt, idleCutoff),
    eq(users.enabled, true),
  ));
  if (!row) return undefined;
  // Touch at most once a minute: enough for idle expiry and "last seen", without a write per request.
  if (now.getTime() - row.lastSeenAt.getTime() > 60_000) {
    await tx.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, row.id));
  }
  return {
    sessionId: row.id,
    csrfToken: csrfTokenFor(policy.secretKey, token),
    user: { id: row.userId, name: row.name, role: row.role as Role, mustChangePassword: row.mustChangePassword },
  };
}

export async function listActiveSessions(tx: Tx, policy: SessionPolicy, userId: string) {
  const now = new Date();
  return tx.select().from(sessions).where(and(
    eq(sessions.userId, userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, now),
    gt(sessions.lastSeenAt, new Date(now.getTime() - policy.idleMinutes * 60_000)),
  )).orderBy(desc(sessions.createdAt));
}

export async function revokeSession(tx: Tx, userId: string, sessionId: string): Promise<void> {
  const [row] = await tx.update(sessions).set({ revokedAt: new Date() })
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id });
  if (!row) throw notFound('session');
}

/** Revokes every session of a user, except `keep` when given. Returns how many ended. */
export async function revokeUserSessions(tx: Tx, userId: string, keep?: string): Promise<number> {
  const rows = await tx.update(sessions).set({ revokedAt: new Date() })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), keep ? ne(sessions.id, keep) : undefined))
    .returning({ id: sessions.id });
  return rows.length;
}

/** Revokes the session of a token (sign-in rotation and sign-out). */
export async function revokeSessionByToken(tx: Tx, token: string): Promise<string | undefined> {
  const [row] = await tx.update(sessions).set({ revokedAt: new Date() })
    .where(and(eq(sessions.tokenHash, tokenHash(token)), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id, userId: sessions.userId });
  return row?.userId;
}
