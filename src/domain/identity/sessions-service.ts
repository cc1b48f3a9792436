import type { Db } from '../../infra/db/client.js';
import { recordSecurityEvent, type Actor } from './security-events.js';
import { listActiveSessions, revokeSession, revokeUserSessions, type SessionPolicy } from './sessions.js';

/** The caller's own sessions: list, sign out one, sign out everywhere. */
export function createSessionsService(deps: { db: Db; policy: SessionPolicy }) {
  const { db } = deps;
  return {
    list: (userId: string) => listActiveSessions(db, deps.policy, userId),
    async revoke(userId: string, sessionId: string, actor: Actor): Promise<void> {
      await db.transaction(async (tx) => {
        await revokeSession(tx, userId, sessionId);
        await recordSecurityEvent(tx, { type: 'session.revoked', actor, userId, target: { type: 'session', id: sessionId } });
      });
    },
    async revokeAll(userId: string, actor: Actor): Promise<void> {
      await db.transaction(async (tx) => {
        const ended = await revokeUserSessions(tx, userId);
        await recordSecurityEvent(tx, { type: 'session.revoked_all', actor, userId, details: { sessions_ended: ended } });
      });
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
