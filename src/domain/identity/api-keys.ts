/**
 * API keys: "hk_" + 43 random base64url characters, shown once, stored as a SHA-256 hash.
 * A key's rights are the lower of its scope and its owner's current role; a disabled owner
 * disables its keys.
 */
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { apiKeys, users } from '../../infra/db/schema.js';
import type { Tx } from '../../infra/db/client.js';
import { newId } from '../../core/ids.js';
import { notFound } from '../../core/errors.js';
import { decodeStringCursor, toPage, type Page } from '../../core/cursor.js';
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

/** Why a token that names a real key is refused; the reason codes of api_key.rejected. */
export type KeyRefusal = 'auth.key_revoked' | 'auth.key_expired' | 'auth.user_disabled';

export type KeyLookup =
  | { ok: true; key: ActiveKey }
  | { ok: false; refused: { apiKeyId: string; ownerId: string; reason: KeyRefusal } | undefined };

/**
 * The key a token names, in one look-up: usable (its rights are the lower of its scope and its
 * owner's current role), refused with the reason (revoked, expired, owner disabled), or unknown.
 */
export async function lookUpApiKey(tx: Tx, token: string): Promise<KeyLookup> {
  if (!token.startsWith(KEY_PREFIX) || token.length < 35 || token.length > 200) return { ok: false, refused: undefined };
  const now = new Date();
  const [row] = await tx.select({
    id: apiKeys.id, scope: apiKeys.scope, lastUsedAt: apiKeys.lastUsedAt, revokedAt: apiKeys.revokedAt, expiresAt: apiKeys.expiresAt,
    userId: users.id, name: users.name, role: users.role, enabled: users.enabled,
  }).from(apiKeys).innerJoin(users, eq(users.id, apiKeys.userId)).where(eq(apiKeys.tokenHash, tokenHash(token)));
  if (!row) return { ok: false, refused: undefined };
  const reason: KeyRefusal | undefined = row.revokedAt ? 'auth.key_revoked'
    : row.expiresAt && row.expiresAt <= now ? 'auth.key_expired'
      : !row.enabled ? 'auth.user_disabled' : undefined;
  if (reason) return { ok: false, refused: { apiKeyId: row.id, ownerId: row.userId, reason } };
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
    await tx.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id));
  }
  return {
    ok: true,
    key: {
      apiKeyId: row.id,
      scope: row.scope as Scope,
      // Keys are made by admins for automation (often for a user who never signs in), so the
      // owner's pending password change does not hold them back; revoke a key to stop it.
      user: { id: row.userId, name: row.name, role: row.role as Role, mustChangePassword: false },
    },
  };
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
