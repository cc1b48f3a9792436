import type { Db } from '../../infra/db/client.js';
import { lookUpApiKey, type KeyLookup } from './api-keys.js';
import type { Authenticator, Credentials, Principal } from './principal.js';
import { recordSecurityEvent } from './security-events.js';
import { resolveSession, type SessionPolicy } from './sessions.js';

/** A refused key is recorded at most once a minute per key and process: a retrying pipeline must not flood the trail. */
const REJECTION_RECORD_INTERVAL_MS = 60_000;

/**
 * Sessions and API keys, checked against the store on every request. The use of a key that was
 * revoked, has expired or whose owner is disabled is a security event (api_key.rejected).
 */
export function createAuthenticator(db: Db, policy: SessionPolicy): Authenticator {
  const recorded = new Map<string, number>();
  const recordRejectedKey = async (refused: Extract<KeyLookup, { ok: false }>['refused'], credentials: Credentials) => {
    if (!refused) return;
    const now = Date.now();
    if (now - (recorded.get(refused.apiKeyId) ?? 0) < REJECTION_RECORD_INTERVAL_MS) return;
    recorded.set(refused.apiKeyId, now);
    if (recorded.size > 10_000) recorded.clear();
    await recordSecurityEvent(db, {
      type: 'api_key.rejected', outcome: 'failure', reason: refused.reason,
      actor: { type: 'api_key', userId: refused.ownerId, apiKeyId: refused.apiKeyId, ip: credentials.ip, userAgent: credentials.userAgent },
      userId: refused.ownerId, target: { type: 'api_key', id: refused.apiKeyId },
    });
  };
  return {
    async authenticate(credentials): Promise<Principal | null> {
      if (credentials.sessionToken) {
        const s = await resolveSession(db, policy, credentials.sessionToken);
        return s ? { kind: 'session', user: s.user, sessionId: s.sessionId, csrfToken: s.csrfToken } : null;
      }
      if (credentials.bearerToken) {
        const found = await lookUpApiKey(db, credentials.bearerToken);
        if (!found.ok) { await recordRejectedKey(found.refused, credentials); return null; }
        const k = found.key;
        return { kind: 'api_key', user: k.user, apiKeyId: k.apiKeyId, scope: k.scope };
      }
      return null;
    },
  };
}
