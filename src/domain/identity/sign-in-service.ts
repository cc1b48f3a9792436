/**
 * Signing in with email and password, and signing out. Failures are recorded with their reason
 * and slow down further attempts progressively; a browser that signed in to this account before
 * (svc_device) is spared the account-wide delay.
 */
import type { Clock } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import type { PasswordHasher } from './passwords.js';
import { recordSecurityEvent } from './security-events.js';
import { issueSession, verifyingKeys, type SessionPolicy } from './sessions.js';
import { deviceCookieName, isDeviceTokenFor, normalizeEmail, tokenHash } from './tokens.js';
import { anonymous, asUser, deviceFor, type RequestMeta, type SignedIn } from './auth-shared.js';
import type { User } from './model.js';
import type { AttemptGuard, IdentityStore } from './ports.js';

/** Names the user's current password, for the sign-in throttle's familiar addresses. */
const familiarTag = (user: User) => `${user.id}:${user.passwordChangedAt?.getTime() ?? 0}`;

export function createSignInService(deps: {
  store: Pick<IdentityStore, 'users' | 'events' | 'transaction'>;
  hasher: PasswordHasher;
  sessionPolicy: SessionPolicy;
  signInGuard: AttemptGuard;
  clock: Clock;
}) {
  const { store, clock } = deps;
  return {
    /** Any previous session of this browser is revoked (rotation). */
    async login(
      input: { email: string; password: string }, meta: RequestMeta,
      browser: { sessionToken?: string | undefined; deviceTokens?: Readonly<Record<string, string>> } = {},
    ): Promise<SignedIn> {
      const email = normalizeEmail(input.email);
      const user = await store.users.findByEmail(email);
      const deviceToken = browser.deviceTokens?.[deviceCookieName(email)];
      const keys = {
        account: email, ip: meta.ip,
        knownDevice: !!user && verifyingKeys(deps.sessionPolicy).some((k) => isDeviceTokenFor(k, deviceToken, user, clock.now())),
        familiarTag: user ? familiarTag(user) : undefined,
      };
      try {
        await deps.signInGuard.attempt(keys);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'rate_limited') {
          await recordSecurityEvent(store.events, { type: 'auth.sign_in', outcome: 'failure', reason: 'rate_limited', actor: anonymous(meta), userId: user?.id ?? null, details: { email_domain: email.split('@')[1] ?? '' } }, clock);
        }
        throw err;
      }
      const ok = await deps.hasher.verify(input.password, user?.passwordHash ?? null);
      if (!user || !ok || !user.enabled) {
        const reason = !user ? 'auth.unknown_user' : !ok ? 'auth.invalid_credentials' : 'auth.user_disabled';
        await recordSecurityEvent(store.events, { type: 'auth.sign_in', outcome: 'failure', reason, actor: anonymous(meta), userId: user?.id ?? null }, clock);
        throw new DomainError('auth.invalid_credentials', 'The email or password is wrong');
      }
      await deps.signInGuard.succeeded(keys);
      return store.transaction(async (tx) => {
        const now = clock.now();
        if (browser.sessionToken) await tx.sessions.revokeByTokenHash(tokenHash(browser.sessionToken), now);
        const session = await issueSession(tx.sessions, deps.sessionPolicy, { userId: user.id, method: 'password', ...meta }, now);
        const fresh = await tx.users.markSignedIn(user.id, now);
        await recordSecurityEvent(tx.events, { type: 'auth.sign_in', actor: asUser(user.id, meta), userId: user.id, target: { type: 'session', id: session.id }, details: { method: 'password' } }, clock);
        return { user: fresh, session, device: deviceFor(deps.sessionPolicy.secretKey, user, now) };
      });
    },

    async logout(userId: string, sessionId: string, token: string, meta: RequestMeta): Promise<void> {
      await store.transaction(async (tx) => {
        const now = clock.now();
        await tx.sessions.revokeByTokenHash(tokenHash(token), now);
        await recordSecurityEvent(tx.events, { type: 'auth.sign_out', actor: asUser(userId, meta), userId, target: { type: 'session', id: sessionId } }, clock);
      });
    },
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
