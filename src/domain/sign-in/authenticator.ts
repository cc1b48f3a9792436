import type { Clock } from '../../core/clock.js';
import { lookUpApiKey, type KeyLookup } from '../api-keys/api-keys.js';
import type { Authenticator, Credentials, Principal } from '../identity/principal.js';
import { recordSecurityEvent } from '../audit/security-events.js';
import { resolveSession, type SessionPolicy } from './sessions.js';
import type { IdentityRepos } from '../identity/ports.js';

/** A refused key is recorded at most once a minute per key and process: a retrying pipeline must not flood the trail. */
const REJECTION_RECORD_INTERVAL_MS = 60_000;

/**
 * Sessions and API keys, checked against the store on every request. The use of a key that was
 * revoked, has expired or whose owner is disabled is a security event (api_key.rejected).
 */
export function createAuthenticator(deps: {
  store: Pick<IdentityRepos, 'sessions' | 'apiKeys' | 'events'>; policy: SessionPolicy; clock: Clock;
}): Authenticator {
  const { store, clock } = deps;
  const recorded = new Map<string, number>();
  const recordRejectedKey = async (refused: Extract<KeyLookup, { ok: false }>['refused'], credentials: Credentials, now: Date) => {
    if (!refused) return;
    if (now.getTime() - (recorded.get(refused.apiKeyId) ?? Number.NEGATIVE_INFINITY) < REJECTION_RECORD_INTERVAL_MS) return;
    recorded.set(refused.apiKeyId, now.getTime());
    if (recorded.size > 10_000) recorded.clear();
    await recordSecurityEvent(store.events, {
      type: 'api_key.rejected', outcome: 'failure', reason: refused.reason,
      actor: { type: 'api_key', userId: refused.ownerId, apiKeyId: refused.apiKeyId, ip: credentials.ip, userAgent: credentials.userAgent },
      userId: refused.ownerId, target: { type: 'api_key', id: refused.apiKeyId },
    }, clock);
  };
  return {
    async authenticate(credentials): Promise<Principal | null> {
      const now = clock.now();
      if (credentials.sessionToken) {
        const s = await resolveSession(store.sessions, deps.policy, credentials.sessionToken, now);
        return s ? { kind: 'session', user: s.user, sessionId: s.sessionId, csrfToken: s.csrfToken, acceptedCsrfTokens: s.acceptedCsrfTokens } : null;
      }
      if (credentials.bearerToken) {
        const found = await lookUpApiKey(store.apiKeys, credentials.bearerToken, now);
        if (!found.ok) { await recordRejectedKey(found.refused, credentials, now); return null; }
        const k = found.key;
        return { kind: 'api_key', user: k.user, apiKeyId: k.apiKeyId, scope: k.scope };
      }
      return null;
    },
  };
}
