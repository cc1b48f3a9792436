/**
 * API keys: "hk_" + 43 random base64url characters, shown once, stored as a SHA-256 hash.
 * A key's rights are the lower of its scope and its owner's current role; a disabled owner
 * disables its keys.
 */
import { newId } from '../../core/ids.js';
import { randomToken, tokenHash } from '../identity/tokens.js';
import type { PrincipalUser, Scope } from '../identity/principal.js';
import type { ApiKeyRecord } from '../identity/model.js';
import type { ApiKeysRepo } from '../identity/ports.js';

export const KEY_PREFIX = 'hk_';

export async function insertApiKey(
  keys: ApiKeysRepo, input: { ownerId: string; createdBy: string | null; name: string; scope: Scope; expiresAt: Date | null }, now: Date,
): Promise<{ row: ApiKeyRecord; token: string }> {
  const token = `${KEY_PREFIX}${randomToken()}`;
  const row = await keys.insert({
    id: newId(),
    userId: input.ownerId,
    createdBy: input.createdBy,
    name: input.name,
    prefix: token.slice(0, 8),
    tokenHash: tokenHash(token),
    scope: input.scope,
    expiresAt: input.expiresAt,
    createdAt: now,
  });
  return { row, token };
}

export interface ActiveKey {
  apiKeyId: string;
  scope: Scope;
  user: PrincipalUser;
  expiresAt: Date | null;
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
export async function lookUpApiKey(keys: ApiKeysRepo, token: string, now: Date): Promise<KeyLookup> {
  if (!token.startsWith(KEY_PREFIX) || token.length < 35 || token.length > 200) return { ok: false, refused: undefined };
  const row = await keys.findWithOwner(tokenHash(token));
  if (!row) return { ok: false, refused: undefined };
  const reason: KeyRefusal | undefined = row.revokedAt ? 'auth.key_revoked'
    : row.expiresAt && row.expiresAt <= now ? 'auth.key_expired'
      : !row.enabled ? 'auth.user_disabled' : undefined;
  if (reason) return { ok: false, refused: { apiKeyId: row.id, ownerId: row.userId, reason } };
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) await keys.touch(row.id, now);
  return {
    ok: true,
    key: {
      apiKeyId: row.id,
      scope: row.scope,
      expiresAt: row.expiresAt,
      // Keys are made by admins for automation (often for a user who never signs in), so the
      // owner's pending password change does not hold them back; revoke a key to stop it.
      user: { id: row.userId, name: row.name, role: row.role, mustChangePassword: false },
    },
  };
}
