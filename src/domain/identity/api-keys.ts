/**
 * API keys: "hk_" + 43 random base64url characters, shown once, stored as a SHA-256 hash.
 * A key's rights are the lower of its scope and its owner's current role; a disabled owner
 * disables its keys.
 */
import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { apiKeys, users } from '../../infra/db/schema.js';
import type { Tx } from '../../infra/db/client.js';
import { newId } from '../shared/ids.js';
import { notFound } from '../shared/errors.js';
import { decodeStringCursor, toPage, type Page } from '../shared/cursor.js';
import { randomToken, tokenHash } from './tokens.js';
import type { PrincipalUser, Role, Scope } from './principal.js';

export const KEY_PREFIX = 'hk_';
export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertApiKey(
  tx: Tx, input: { ownerId: string; createdBy: string | null; name: string; scope: Scope; expiresAt: Date | null },
): Promise<{ row: ApiKeyRow; token: string }> {
  const token = `${KEY_PREFIX}${randomToken()}`;
  const [row] = await tx.insert(apiKeys).values({
    id: newId(),
    userId: input.ownerId,
    createdBy: input.createdBy,
    name: input.name,
    prefix: token.slice(0, 8),
    tokenHash: tokenHash(token),
    scope: input.scope,
    expiresAt: input.expiresAt,
  }).returning();
  return { row: row!, token };
}

export interface ActiveKey {
  apiKeyId: string;
  scope: Scope;
  user: PrincipalUser;
}

export async function resolveApiKey(tx: Tx, token: string): Promise<ActiveKey | undefined> {
  if (!token.startsWith(KEY_PREFIX) || token.length < 35 || token.length > 200) return undefined;
  const now = new Date();
  const [row] = await tx.select({
    id: apiKeys.id, scope: apiKeys.scope, lastUsedAt: apiKeys.lastUsedAt,
    userId: users.id, name: users.name, role: users.role, mustChangePassword: users.mustChangePassword,
  }).from(apiKeys).innerJoin(users, eq(users.id, apiKeys.userId)).where(and(
    eq(apiKeys.tokenHash, tokenHash(token)),
    isNull(apiKeys.revokedAt),
    or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
    eq(users.enabled, true),
  ));
  if (!row) return undefined;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
    await tx.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id));
  }
  return {
    apiKeyId: row.id,
    scope: row.scope as Scope,
    // Keys are made by admins for automation (often for a user who never signs in), so the
    // owner's pending password change does not hold them back; revoke a key to stop it.
    user: { id: row.userId, name: row.name, role: row.role as Role, mustChangePassword: false },
  };
}

/**
 * Why a token that names a real key is refused (revoked, expired, its owner disabled), or
 * undefined when the token names no key at all.
 */
export async function whyKeyIsRefused(
  tx: Tx, token: string, now = new Date(),
): Promise<{ apiKeyId: string; ownerId: string; reason: 'revoked' | 'expired' | 'owner_disabled' } | undefined> {
  if (!token.startsWith(KEY_PREFIX)) return undefined;
  const [row] = await tx.select({ id: apiKeys.id, userId: apiKeys.userId, revokedAt: apiKeys.revokedAt, expiresAt: apiKeys.expiresAt, enabled: users.enabled })
    .from(apiKeys).innerJoin(users, eq(users.id, apiKeys.userId)).where(eq(apiKeys.tokenHash, tokenHash(token)));
  if (!row) return undefined;
  const reason = row.revokedAt ? 'revoked' : row.expiresAt && row.expiresAt <= now ? 'expired' : !row.enabled ? 'owner_disabled' : undefined;
  return reason ? { apiKeyId: row.id, ownerId: row.userId, reason } : undefined;
}

export async function revokeApiKey(tx: Tx, id: string): Promise<ApiKeyRow> {
  const [row] = await tx.update(apiKeys).set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
    .where(eq(apiKeys.id, id)).returning();
  if (!row) throw notFound('API key');
  return row;
}

export async function listApiKeys(tx: Tx, q: { limit: number; cursor?: string; ownerId?: string }): Promise<Page<ApiKeyRow>> {
  const conditions = [];
  if (q.ownerId) conditions.push(eq(apiKeys.userId, q.ownerId));
  if (q.cursor) conditions.push(lt(apiKeys.id, decodeStringCursor(q.cursor, 1)[0]!));
  const rows = await tx.select().from(apiKeys).where(and(...conditions)).orderBy(desc(apiKeys.id)).limit(q.limit + 1);
  return toPage(rows, q.limit, (r) => [r.id], (r) => r);
}
