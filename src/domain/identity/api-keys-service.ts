import type { Db } from '../../infra/db/client.js';
import { validationFailed } from '../../core/errors.js';
import { insertApiKey, listApiKeys, revokeApiKey } from './api-keys.js';
import { recordSecurityEvent, type Actor } from './security-events.js';
import { getUser } from './users-store.js';
import type { Scope } from './principal.js';

/** Admins create keys for themselves or another user; revoking takes effect at once. */
export function createApiKeysService(deps: { db: Db }) {
  const { db } = deps;
  return {
    list: (q: { limit: number; cursor?: string; ownerId?: string }) => listApiKeys(db, q),
    async create(input: { name: string; scope: Scope; ownerId: string; expiresAt?: Date }, actor: Actor) {
      if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
        throw validationFailed([{ field: 'expires_at', code: 'validation.range', message: 'must be in the future' }]);
      }
      return db.transaction(async (tx) => {
        const owner = await getUser(tx, input.ownerId).catch(() => {
          throw validationFailed([{ field: 'owner_id', code: 'validation.invalid', message: 'is not a user' }]);
        });
        const created = await insertApiKey(tx, {
          ownerId: owner.id, createdBy: actor.userId ?? null, name: input.name.trim(), scope: input.scope, expiresAt: input.expiresAt ?? null,
        });
        await recordSecurityEvent(tx, {
          type: 'api_key.created', actor, userId: owner.id, target: { type: 'api_key', id: created.row.id },
          details: { scope: input.scope, prefix: created.row.prefix },
        });
        return created;
      });
    },
    async revoke(id: string, actor: Actor) {
      return db.transaction(async (tx) => {
        const row = await revokeApiKey(tx, id);
        await recordSecurityEvent(tx, { type: 'api_key.revoked', actor, userId: row.userId, target: { type: 'api_key', id } });
        return row;
      });
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
