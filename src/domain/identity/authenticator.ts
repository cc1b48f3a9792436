import type { Db } from '../../infra/db/client.js';
import { resolveApiKey } from './api-keys.js';
import type { Authenticator, Principal } from './principal.js';
import { resolveSession, type SessionPolicy } from './sessions.js';

/** Sessions and API keys, checked against the store on every request. */
export function createAuthenticator(db: Db, policy: SessionPolicy): Authenticator {
  return {
    async authenticate(credentials): Promise<Principal | null> {
      if (credentials.sessionToken) {
        const s = await resolveSession(db, policy, credentials.sessionToken);
        return s ? { kind: 'session', user: s.user, sessionId: s.sessionId, csrfToken: s.csrfToken } : null;
      }
      if (credentials.bearerToken) {
        const k = await resolveApiKey(db, credentials.bearerToken);
        return k ? { kind: 'api_key', user: k.user, apiKeyId: k.apiKeyId, scope: k.scope } : null;
      }
      return null;
    },
  };
}
