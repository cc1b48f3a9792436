import type { Clock } from '../../core/clock.js';
import { notFound } from '../../core/errors.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import { idleSince, type SessionPolicy } from './sessions.js';
import type { IdentityStore } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

/** The caller's own sessions: list, sign out one, sign out everywhere. */
export function createSessionsService(deps: { store: Pick<IdentityStore, 'sessions'>; uow: UnitOfWork; policy: SessionPolicy; clock: Clock }) {
  const { store, clock } = deps;
  return {
    list(userId: string) {
      const now = clock.now();
      return store.sessions.listActive(userId, now, idleSince(deps.policy, now));
    },
    async revoke(userId: string, sessionId: string, actor: Actor): Promise<void> {
      await deps.uow.run(async (tx) => {
        const now = clock.now();
        if (!(await tx.sessions.revoke(userId, sessionId, now))) throw notFound('session');
        await recordSecurityEvent(tx.securityEvents, { type: 'session.revoked', actor, userId, target: { type: 'session', id: sessionId } }, clock);
      });
    },
    async revokeAll(userId: string, actor: Actor): Promise<void> {
      await deps.uow.run(async (tx) => {
        const now = clock.now();
        const ended = await tx.sessions.revokeAllOf(userId, now);
        await recordSecurityEvent(tx.securityEvents, { type: 'session.revoked_all', actor, userId, details: { sessions_ended: ended } }, clock);
      });
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
