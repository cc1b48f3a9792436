import type { Clock } from '../../core/clock.js';
import { notFound, validationFailed } from '../../core/errors.js';
import { insertApiKey } from './api-keys.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import type { Scope } from '../identity/principal.js';
import type { IdentityStore } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

/** Admins create keys for themselves or another user; revoking takes effect at once. */
export function createApiKeysService(deps: { store: Pick<IdentityStore, 'apiKeys'>; uow: UnitOfWork; clock: Clock }) {
  const { store, clock } = deps;
  return {
    list: (q: { limit: number; cursor?: string; ownerId?: string }) => store.apiKeys.list(q),
    async create(input: { name: string; scope: Scope; ownerId: string; expiresAt?: Date }, actor: Actor) {
      if (input.expiresAt && input.expiresAt.getTime() <= clock.now().getTime()) {
        throw validationFailed([{ field: 'expires_at', code: 'validation.range', message: 'must be in the future' }]);
      }
      return deps.uow.run(async (tx) => {
        const owner = await tx.users.find(input.ownerId);
        if (!owner) throw validationFailed([{ field: 'owner_id', code: 'validation.invalid', message: 'is not a user' }]);
        const now = clock.now();
        const created = await insertApiKey(tx.apiKeys, {
          ownerId: owner.id, createdBy: actor.userId ?? null, name: input.name.trim(), scope: input.scope, expiresAt: input.expiresAt ?? null,
        }, now);
        await recordSecurityEvent(tx.securityEvents, {
          type: 'api_key.created', actor, userId: owner.id, target: { type: 'api_key', id: created.row.id },
          details: { scope: input.scope, prefix: created.row.prefix },
        }, clock);
        return created;
      });
    },
    async revoke(id: string, actor: Actor) {
      return deps.uow.run(async (tx) => {
        const now = clock.now();
        const row = await tx.apiKeys.revoke(id, now);
        if (!row) throw notFound('API key');
        await recordSecurityEvent(tx.securityEvents, { type: 'api_key.revoked', actor, userId: row.userId, target: { type: 'api_key', id } }, clock);
        return row;
      });
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
