/**
 * Signing in and out. The password step records failures with their reason and slows further
 * attempts down progressively; a browser that signed in to this account before (svc_device) is
 * spared the account-wide delay. An account with a second factor gets a ticket instead of a
 * session: five minutes, single use, bound to that account and its current password, finished
 * by an authenticator code, a recovery code or a passkey (throttled the same way, and ended after
 * five wrong answers). A passkey also signs in on its own (passwordless).
 */
import type { Clock } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Secrets } from '../../core/secrets.js';
import type { PasswordHasher } from '../identity/passwords.js';
import { recordSecurityEvent } from '../audit/security-events.js';
import { issueSession, verifyingKeys, type SessionPolicy } from './sessions.js';
import { deviceCookieName, isDeviceTokenFor, normalizeEmail, randomToken, tokenHash } from '../identity/tokens.js';
import { anonymous, asUser, deviceFor, type RequestMeta, type SignedIn } from './auth-shared.js';
import {
  looksLikeRecoveryCode, recoveryCodeHash, secondFactorMethods, STEP_TTL_MS, TICKET_MAX_FAILURES, useTotpCode,
} from './second-factor.js';
import { assertionOptions, verifyAssertion, type CredentialJson, type RelyingParty } from './passkeys-service.js';
import { passwordSignInAllowed, readWorkspaceSettings } from '../workspace/workspace-settings.js';
import type { SecondFactor, SessionMethod, User } from '../identity/model.js';
import type { AttemptGuard, IdentityStore } from '../identity/ports.js';
import type { TxRepos, UnitOfWork } from '../unit-of-work/ports.js';

/** Names the user's current password, for the sign-in throttle's familiar addresses. */
const familiarTag = (user: User) => `${user.id}:${user.passwordChangedAt?.getTime() ?? 0}`;

const TICKET = 'sign_in.ticket';

/** A wrong recovery code found inside the sign-in transaction: it rolls back, then counts as a wrong answer. */
class WrongAnswer extends Error {}

export type LoginOutcome =
  | ({ status: 'signed_in' } & SignedIn)
  | { status: 'second_factor_required'; ticket: string; methods: SecondFactor[] };

export interface BrowserProof {
  sessionToken?: string | undefined;
  deviceTokens?: Readonly<Record<string, string>>;
}

export interface SignInDeps {
  store: Pick<IdentityStore, 'users' | 'events' | 'settings' | 'passkeys' | 'flows' | 'recoveryCodes' | 'sessions'>; uow: UnitOfWork;
  hasher: PasswordHasher;
  sessionPolicy: SessionPolicy;
  signInGuard: AttemptGuard;
  secondFactorGuard: AttemptGuard;
  passkeyGuard: AttemptGuard;
  secrets: Secrets;
  rp: RelyingParty;
  clock: Clock;
}

/**
 * Issues the session of a sign-in that succeeded, in one transaction: any previous session of
 * this browser is revoked (rotation), last sign-in is recorded, the event names the method.
 */
export async function completeSignIn(
  tx: Pick<TxRepos, 'sessions' | 'users' | 'securityEvents'>, deps: Pick<SignInDeps, 'sessionPolicy' | 'clock'>, user: User,
  how: { method: SessionMethod; secondFactor?: SecondFactor | undefined; mustEnrol?: boolean | undefined; details?: Record<string, string | number | boolean | null> },
  meta: RequestMeta, browser: BrowserProof,
): Promise<SignedIn> {
  const now = deps.clock.now();
  if (browser.sessionToken) await tx.sessions.revokeByTokenHash(tokenHash(browser.sessionToken), now);
  const session = await issueSession(tx.sessions, deps.sessionPolicy, {
    userId: user.id, method: how.method, secondFactor: how.secondFactor, mustEnrol: how.mustEnrol, ...meta,
  }, now);
  const fresh = await tx.users.markSignedIn(user.id, now);
  await recordSecurityEvent(tx.securityEvents, {
    type: 'auth.sign_in', actor: asUser(user.id, meta), userId: user.id, target: { type: 'session', id: session.id },
    details: { method: how.method, ...(how.secondFactor ? { second_factor: how.secondFactor } : {}), ...(how.mustEnrol ? { must_enrol: true } : {}), ...how.details },
  }, deps.clock);
  return { user: fresh, session, device: deviceFor(deps.sessionPolicy.secretKey, user, now), mustEnrol: how.mustEnrol ?? false };
}

export function createSignInService(deps: SignInDeps) {
  const { store, clock } = deps;
  const knownDevice = (user: User | undefined, browser: BrowserProof) => {
    const token = user ? browser.deviceTokens?.[deviceCookieName(user.email)] : undefined;
    return !!user && verifyingKeys(deps.sessionPolicy).some((k) => isDeviceTokenFor(k, token, user, clock.now()));
  };

  /** The ticket's flow and user, or auth.ticket_invalid. The ticket must still name the account's current password. */
  async function openTicket(ticket: string, meta: RequestMeta) {
    const flow = await store.flows.findUsable(TICKET, tokenHash(ticket), clock.now());
    const user = flow?.userId ? await store.users.find(flow.userId) : undefined;
    if (!flow || !user || !user.enabled || flow.data.password_changed_at !== (user.passwordChangedAt?.getTime() ?? 0)) {
      if (flow) await store.flows.claim(flow.id, clock.now());
      await recordSecurityEvent(store.events, {
        type: 'auth.second_factor', outcome: 'failure', reason: 'auth.ticket_invalid', actor: anonymous(meta), userId: user?.id ?? null,
      }, clock);
      throw new DomainError('auth.ticket_invalid', 'The sign-in ticket is unknown, used or expired; sign in with your password again');
    }
    return { flow, user };
  }

  return {
    async login(input: { email: string; password: string }, meta: RequestMeta, browser: BrowserProof = {}): Promise<LoginOutcome> {
      const email = normalizeEmail(input.email);
      const user = await store.users.findByEmail(email);
      const keys = { account: email, ip: meta.ip, knownDevice: knownDevice(user, browser), familiarTag: user ? familiarTag(user) : undefined };
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
      const policy = await readWorkspaceSettings(store.settings);
      if (!(await passwordSignInAllowed(store.settings, user.role, policy))) {
        await recordSecurityEvent(store.events, { type: 'auth.sign_in', outcome: 'failure', reason: 'auth.password_sign_in_disabled', actor: anonymous(meta), userId: user.id }, clock);
        throw new DomainError('auth.password_sign_in_disabled', 'Password sign-in is off for this account; sign in with single sign-on or a passkey');
      }
      const methods = secondFactorMethods(user, await store.passkeys.countOf(user.id));
      if (methods.length > 0) {
        const ticket = randomToken();
        const now = clock.now();
        await store.flows.insert({
          id: newId(), kind: TICKET, tokenHash: tokenHash(ticket), userId: user.id,
          data: { password_changed_at: user.passwordChangedAt?.getTime() ?? 0 }, createdAt: now, expiresAt: new Date(now.getTime() + STEP_TTL_MS),
        });
        return { status: 'second_factor_required', ticket, methods };
      }
      const signedIn = await deps.uow.run((tx) => completeSignIn(tx, deps, user, { method: 'password', mustEnrol: policy.requireSecondFactor }, meta, browser));
      return { status: 'signed_in', ...signedIn };
    },

    /** Options for the passkey step of a sign-in (the ticket's account's passkeys only). */
    async secondFactorPasskeyOptions(ticket: string, meta: RequestMeta) {
      const { flow, user } = await openTicket(ticket, meta);
      if ((await store.passkeys.countOf(user.id)) === 0) throw new DomainError('auth.method_unavailable', 'This account has no passkey');
      return assertionOptions({ store, uow: deps.uow, rp: deps.rp, clock }, 'second_factor', user, { ticket_id: flow.id });
    },

    async secondFactor(
      input: { ticket: string; method: SecondFactor; code?: string | undefined; credential?: CredentialJson | undefined },
      meta: RequestMeta, browser: BrowserProof = {},
    ): Promise<SignedIn> {
      const { flow, user } = await openTicket(input.ticket, meta);
      const keys = { account: user.id, ip: meta.ip, knownDevice: knownDevice(user, browser) };
      await deps.secondFactorGuard.attempt(keys);
      const methods = secondFactorMethods(user, await store.passkeys.countOf(user.id));
      if (!methods.includes(input.method)) throw new DomainError('auth.method_unavailable', `This account cannot sign in with ${input.method}`);
      const wrong = async (reason = 'auth.invalid_credentials') => {
        const failures = await store.flows.fail(flow.id, TICKET_MAX_FAILURES, clock.now());
        await recordSecurityEvent(store.events, {
          type: 'auth.second_factor', outcome: 'failure', reason, actor: anonymous(meta), userId: user.id,
          details: { method: input.method, ticket_ended: failures >= TICKET_MAX_FAILURES },
        }, clock);
        return new DomainError('auth.invalid_credentials', failures >= TICKET_MAX_FAILURES
          ? 'The code is wrong, and the ticket has ended after too many wrong answers; sign in with your password again'
          : 'The code is wrong');
      };
      if (input.method === 'totp') {
        if (!input.code || !(await useTotpCode(store.users, deps.secrets, user, input.code, clock.now()))) throw await wrong();
      } else if (input.method === 'passkey') {
        if (!input.credential) throw await wrong();
        try {
          const { flowData } = await verifyAssertion({ store, uow: deps.uow, rp: deps.rp, clock }, 'second_factor', input.credential, meta, user.id);
          if (flowData.ticket_id !== flow.id) throw new DomainError('auth.challenge_invalid', 'The passkey answered the challenge of another sign-in');
        } catch (err) {
          if (err instanceof DomainError && err.code === 'auth.invalid_credentials') throw await wrong('passkey.refused');
          throw err;
        }
      } else if (!input.code || !looksLikeRecoveryCode(input.code)) {
        throw await wrong();
      }
      let outcome;
      try {
        outcome = await deps.uow.run(async (tx) => {
        const now = clock.now();
        if (!(await tx.authFlows.claim(flow.id, now))) return undefined;
        let remaining: number | undefined;
        if (input.method === 'recovery_code') {
          if (!(await tx.recoveryCodes.use(user.id, recoveryCodeHash(user.id, input.code!), now))) throw new WrongAnswer();
          remaining = await tx.recoveryCodes.remaining(user.id);
          await recordSecurityEvent(tx.securityEvents, {
            type: 'auth.recovery_code_used', actor: asUser(user.id, meta), userId: user.id, details: { remaining },
          }, clock);
        }
        const signedIn = await completeSignIn(tx, deps, user, { method: 'password', secondFactor: input.method }, meta, browser);
        return { ...signedIn, ...(remaining !== undefined ? { recoveryCodesRemaining: remaining } : {}) };
        });
      } catch (err) {
        if (err instanceof WrongAnswer) throw await wrong();
        throw err;
      }
      if (!outcome) throw new DomainError('auth.ticket_invalid', 'The sign-in ticket was used already; sign in with your password again');
      await deps.secondFactorGuard.succeeded(keys);
      return outcome;
    },

    /** Options for passwordless sign-in: the browser offers the passkeys it holds for this site. */
    async passkeyOptions(meta: RequestMeta) {
      await deps.passkeyGuard.attempt({ ip: meta.ip });
      return assertionOptions({ store, uow: deps.uow, rp: deps.rp, clock }, 'passwordless');
    },

    async passkeySignIn(credential: CredentialJson, meta: RequestMeta, browser: BrowserProof = {}): Promise<SignedIn> {
      await deps.passkeyGuard.attempt({ ip: meta.ip });
      const { passkey } = await verifyAssertion({ store, uow: deps.uow, rp: deps.rp, clock }, 'passwordless', credential, meta);
      const user = await store.users.find(passkey.userId);
      if (!user || !user.enabled) {
        await recordSecurityEvent(store.events, { type: 'auth.sign_in', outcome: 'failure', reason: 'auth.user_disabled', actor: anonymous(meta), userId: passkey.userId, details: { method: 'passkey' } }, clock);
        throw new DomainError('auth.invalid_credentials', 'The passkey was not accepted');
      }
      return deps.uow.run((tx) => completeSignIn(tx, deps, user, { method: 'passkey', details: { passkey_id: passkey.id } }, meta, browser));
    },

    async logout(userId: string, sessionId: string, token: string, meta: RequestMeta): Promise<void> {
      await deps.uow.run(async (tx) => {
        const now = clock.now();
        await tx.sessions.revokeByTokenHash(tokenHash(token), now);
        await recordSecurityEvent(tx.securityEvents, { type: 'auth.sign_out', actor: asUser(userId, meta), userId, target: { type: 'session', id: sessionId } }, clock);
      });
    },
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
