import type { Clock } from '../../core/clock.js';
import { lookUpApiKey, type KeyLookup } from '../api-keys/api-keys.js';
import type { Authenticator, Credentials, Principal } from '../identity/principal.js';
import { recordSecurityEvent } from '../audit/security-events.js';
import { resolveSession, type SessionPolicy } from './sessions.js';
import type { IdentityRepos } from '../identity/ports.js';

/** A refused key is recorded at most once a minute per key and process: a retrying pipeline must not flood the trail. */
const REJECTION_RECORD_INTERVAL_MS = 60_000;

/** How long a principal is held: a few seconds bound what a lost invalidation could cost. */
export const PRINCIPAL_CACHE_MS = 5_000;
/** Principals held at most (tokens seen in the last few seconds); past it the oldest go first. */
const PRINCIPAL_CACHE_MAX = 10_000;
/**
 * A principal used after this share of its time is read again behind the request that used it,
 * so that a credential in steady use is never missed (no store read in a request's path every few
 * seconds, no burst of reads by every request that finds it expired at once). What is held is
 * never older than `cacheMs` either way.
 */
const REFRESH_AHEAD = 0.8;

export interface CachingAuthenticator extends Authenticator {
  /**
   * Drops the principals held for a user (every one when no user is named): called when
   * `identity.changed` arrives, and by tests. Lookups under way when it is called are not held.
   */
  forget(userId?: string): void;
  /**
   * Holds principals from now on (false: stops and forgets them). Only once the process receives
   * `identity.changed`: a process that would not hear of a revocation must not hold principals.
   */
  holdPrincipals(on: boolean): void;
  /** Whether principals are held now. */
  readonly holding: boolean;
}

interface Held {
  principal: Principal;
  until: number;
  /** When the read behind it started (a slower, older read never replaces it). */
  readAt: number;
  /** When a use starts the read again (Infinity: never, as when the credential's expiry ends it first, or once started). */
  refreshAt: number;
}

/**
 * Sessions and API keys, checked against the store, the principal then held for a few seconds
 * (`cacheMs`) once holdPrincipals(true) was called: a revocation, a disabled user or a new role
 * (identity.changed, written in the change's transaction) drops them in every API process at once,
 * and a key's expiry is never passed. Refusals are never held. A principal used in the last fifth
 * of its time is read again behind that request (REFRESH_AHEAD). The use of a key that was revoked,
 * has expired or whose owner is disabled is a security event (api_key.rejected).
 */
export function createAuthenticator(deps: {
  store: Pick<IdentityRepos, 'sessions' | 'apiKeys' | 'events'>; policy: SessionPolicy; clock: Clock; cacheMs?: number;
}): CachingAuthenticator {
  const { store, clock } = deps;
  const cacheMs = deps.cacheMs ?? PRINCIPAL_CACHE_MS;
  let holding = false;
  /** By credential ("s:" session token, "k:" API key), in insertion order (the oldest first out). */
  const held = new Map<string, Held>();
  /** Bumped by forget(): a lookup that started before it must not hold what it read. */
  let generation = 0;
  /** When each credential was last refused: a read that started before (a slow one behind a request) must not hold it again. */
  const refusedAt = new Map<string, number>();
  const hold = (key: string, principal: Principal, startedIn: number, now: Date, expiresAt: Date | null | undefined) => {
    if (!holding || cacheMs <= 0 || startedIn !== generation) return;
    const readAt = now.getTime();
    if ((held.get(key)?.readAt ?? Number.NEGATIVE_INFINITY) > readAt || (refusedAt.get(key) ?? Number.NEGATIVE_INFINITY) >= readAt) return;
    const byTime = readAt + cacheMs;
    const until = Math.min(byTime, expiresAt ? expiresAt.getTime() : Number.POSITIVE_INFINITY);
    held.delete(key); // a refresh's entry goes last, as a new one would
    if (held.size >= PRINCIPAL_CACHE_MAX) held.delete(held.keys().next().value!);
    held.set(key, { principal, until, readAt, refreshAt: until === byTime ? readAt + cacheMs * REFRESH_AHEAD : Number.POSITIVE_INFINITY });
  };
  const refuse = (key: string, now: Date): void => {
    held.delete(key);
    if (refusedAt.size >= PRINCIPAL_CACHE_MAX) refusedAt.clear();
    refusedAt.set(key, now.getTime());
  };
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
  /**
   * The credential checked against the store, its principal held when it passes. A refused key's
   * use is recorded when `record` (a request that is refused; not a read behind a request that was
   * served, whose next request is refused and recorded).
   */
  const lookUp = async (key: string, credentials: Credentials, now: Date, record = true): Promise<Principal | null> => {
    const startedIn = generation;
    if (credentials.sessionToken) {
      const s = await resolveSession(store.sessions, deps.policy, credentials.sessionToken, now);
      if (!s) { refuse(key, now); return null; }
      const principal: Principal = { kind: 'session', user: s.user, sessionId: s.sessionId, csrfToken: s.csrfToken, acceptedCsrfTokens: s.acceptedCsrfTokens };
      hold(key, principal, startedIn, now, s.expiresAt);
      return principal;
    }
    const lookup = await lookUpApiKey(store.apiKeys, credentials.bearerToken!, now);
    if (!lookup.ok) {
      refuse(key, now);
      if (record) await recordRejectedKey(lookup.refused, credentials, now);
      return null;
    }
    const k = lookup.key;
    const principal: Principal = { kind: 'api_key', user: k.user, apiKeyId: k.apiKeyId, scope: k.scope };
    hold(key, principal, startedIn, now, k.expiresAt);
    return principal;
  };
  /**
   * Reads a held credential again behind the request that used it: refused now (revoked, expired,
   * its user disabled), it is held no longer; a store that fails leaves it to run out as before.
   */
  const refresh = (key: string, credentials: Credentials, now: Date): void => {
    lookUp(key, credentials, now, false).catch(() => undefined);
  };
  return {
    async authenticate(credentials): Promise<Principal | null> {
      const now = clock.now();
      const key = credentials.sessionToken ? `s:${credentials.sessionToken}` : credentials.bearerToken ? `k:${credentials.bearerToken}` : undefined;
      if (key === undefined) return null;
      const found = held.get(key);
      if (found) {
        if (found.until > now.getTime()) {
          if (now.getTime() >= found.refreshAt) {
            found.refreshAt = Number.POSITIVE_INFINITY; // one read again per holding
            refresh(key, credentials, now);
          }
          return found.principal;
        }
        held.delete(key);
      }
      return lookUp(key, credentials, now);
    },
    forget(userId) {
      generation += 1;
      if (userId === undefined) { held.clear(); return; }
      for (const [key, h] of held) if (h.principal.user.id === userId) held.delete(key);
    },
    holdPrincipals(on) {
      holding = on;
      if (!on) { generation += 1; held.clear(); }
    },
    get holding() { return holding; },
  };
}
