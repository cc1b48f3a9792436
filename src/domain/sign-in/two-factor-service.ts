/**
 * The authenticator app of a user: setup (a pending secret, sealed), confirmation with a first
 * code (on, with ten recovery codes shown once), turning it off and replacing the recovery codes
 * (with the current password or a current code), and an admin turning off another user's second
 * factors (authenticator, recovery codes and passkeys; their sessions end).
 */
import type { Clock } from '../../core/clock.js';
import { DomainError, notFound, validationFailed } from '../../core/errors.js';
import type { Secrets } from '../../core/secrets.js';
import type { PasswordHasher } from '../identity/passwords.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import { asUser, type RequestMeta } from './auth-shared.js';
import {
  looksLikeRecoveryCode, matchTotp, newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpPendingContext, totpSecretContext,
  totpSetupOf, useTotpCode,
} from './second-factor.js';
import type { User } from '../identity/model.js';
import type { AttemptGuard, IdentityStore } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';


export function createTwoFactorService(deps: {
  store: Pick<IdentityStore, 'users' | 'events' | 'recoveryCodes'>; uow: UnitOfWork;
  hasher: PasswordHasher;
  secrets: Secrets;
  /** Checking a code or password of a signed-in user: per user and address (the password-change policy). */
  guard: AttemptGuard;
  clock: Clock;
}) {
  const { store, secrets, clock } = deps;
  const userOf = async (id: string): Promise<User> => {
    const user = await store.users.find(id);
    if (!user) throw notFound('user');
    return user;
  };
  const newCodes = async (userId: string, tx: Pick<IdentityStore, 'recoveryCodes'>, now: Date) => {
    const codes = newRecoveryCodes();
    await tx.recoveryCodes.replace(userId, codes.map((c) => recoveryCodeHash(userId, c)), now);
    return codes;
  };

  /**
   * The current password, or a current authenticator or recovery code (a recovery code is used
   * up). A wrong one is 422 on its field and counts towards the throttle.
   */
  async function reauthenticate(user: User, input: { password?: string | undefined; code?: string | undefined }, meta: RequestMeta, what: string) {
    const keys = { account: user.id, ip: meta.ip };
    await deps.guard.attempt(keys);
    let ok = false;
    if (input.password !== undefined) {
      ok = await deps.hasher.verify(input.password, user.passwordHash);
    } else if (input.code !== undefined && user.totpEnabled) {
      ok = looksLikeRecoveryCode(input.code)
        ? await store.recoveryCodes.use(user.id, recoveryCodeHash(user.id, input.code), clock.now())
        : await useTotpCode(store.users, secrets, user, input.code, clock.now());
    }
    if (!ok) {
      const field = input.password !== undefined ? 'password' : 'code';
      await recordSecurityEvent(store.events, { type: 'auth.second_factor', outcome: 'failure', reason: 'auth.invalid_credentials', actor: asUser(user.id, meta), userId: user.id, details: { step: what, field } }, clock);
      throw validationFailed([{ field, code: 'validation.invalid', message: field === 'password' ? 'is not your current password' : 'is not a current code' }]);
    }
    await deps.guard.succeeded(keys);
  }

  return {
    async startSetup(userId: string, meta: RequestMeta): Promise<{ secret: string; otpauthUri: string; qrCode: string }> {
      const user = await userOf(userId);
      if (user.totpEnabled) throw new DomainError('two_factor.already_enabled', 'The authenticator app is already on; turn it off first to enrol another');
      const secret = await newTotpSecret();
      await deps.uow.run(async (tx) => {
        const now = clock.now();
        await tx.users.update(userId, undefined, { totpPendingSecret: secrets.seal(secret, totpPendingContext(userId)) }, now);
        await recordSecurityEvent(tx.securityEvents, { type: 'two_factor.setup_started', actor: asUser(userId, meta), userId, target: { type: 'user', id: userId } }, clock);
      });
      return totpSetupOf(secret, user.email);
    },

    async confirm(userId: string, code: string, meta: RequestMeta): Promise<string[]> {
      const user = await userOf(userId);
      if (user.totpEnabled) throw new DomainError('two_factor.already_enabled', 'The authenticator app is already on');
      if (!user.totpPendingSecret) throw new DomainError('two_factor.no_pending_setup', 'Start with POST /api/v1/me/2fa/totp/setup');
      const keys = { account: user.id, ip: meta.ip };
      await deps.guard.attempt(keys);
      const secret = secrets.open(user.totpPendingSecret, totpPendingContext(userId));
      const step = await matchTotp(secret, code, clock.now());
      if (step === undefined) {
        await recordSecurityEvent(store.events, { type: 'two_factor.enabled', outcome: 'failure', reason: 'auth.invalid_credentials', actor: asUser(userId, meta), userId }, clock);
        throw validationFailed([{ field: 'code', code: 'validation.invalid', message: 'is not the current code of the authenticator app (check the device clock)' }]);
      }
      await deps.guard.succeeded(keys);
      return deps.uow.run(async (tx) => {
        const now = clock.now();
        // The confirming code counts as used: it cannot also finish a sign-in.
        await tx.users.update(userId, undefined, {
          totpEnabled: true, totpSecret: secrets.seal(secret, totpSecretContext(userId)), totpPendingSecret: null, totpLastStep: step, totpEnabledAt: now,
        }, now);
        const codes = await newCodes(userId, tx, now);
        await tx.sessions.clearMustEnrol(userId);
        await recordSecurityEvent(tx.securityEvents, { type: 'two_factor.enabled', actor: asUser(userId, meta), userId, target: { type: 'user', id: userId }, details: { method: 'totp' } }, clock);
        return codes;
      });
    },

    async disable(userId: string, input: { password?: string | undefined; code?: string | undefined }, meta: RequestMeta): Promise<void> {
      const user = await userOf(userId);
      if (!user.totpEnabled) throw new DomainError('two_factor.not_enabled', 'The authenticator app is not on');
      await reauthenticate(user, input, meta, 'disable');
      await deps.uow.run(async (tx) => {
        const now = clock.now();
        await tx.users.update(userId, undefined, { totpEnabled: false, totpSecret: null, totpPendingSecret: null, totpEnabledAt: null }, now);
        await tx.recoveryCodes.removeAll(userId);
        await recordSecurityEvent(tx.securityEvents, { type: 'two_factor.disabled', actor: asUser(userId, meta), userId, target: { type: 'user', id: userId }, details: { method: 'totp' } }, clock);
      });
    },

    async replaceRecoveryCodes(userId: string, input: { password?: string | undefined; code?: string | undefined }, meta: RequestMeta): Promise<string[]> {
      const user = await userOf(userId);
      if (!user.totpEnabled) throw new DomainError('two_factor.not_enabled', 'Recovery codes come with the authenticator app, which is not on');
      await reauthenticate(user, input, meta, 'recovery_codes');
      return deps.uow.run(async (tx) => {
        const codes = await newCodes(userId, tx, clock.now());
        await recordSecurityEvent(tx.securityEvents, { type: 'two_factor.recovery_codes_replaced', actor: asUser(userId, meta), userId, target: { type: 'user', id: userId } }, clock);
        return codes;
      });
    },

    /** An admin turns off every second factor of another user; the user's sessions end. */
    async disableFor(userId: string, actor: Actor): Promise<void> {
      await deps.uow.run(async (tx) => {
        const now = clock.now();
        const user = await tx.users.find(userId);
        if (!user) throw notFound('user');
        await tx.users.update(userId, undefined, { totpEnabled: false, totpSecret: null, totpPendingSecret: null, totpEnabledAt: null }, now);
        await tx.recoveryCodes.removeAll(userId);
        const passkeys = await tx.passkeys.removeAllOf(userId);
        const ended = await tx.sessions.revokeAllOf(userId, now);
        await tx.authFlows.endAllOf(userId, ['sign_in.ticket', 'webauthn.second_factor'], now);
        await recordSecurityEvent(tx.securityEvents, {
          type: 'two_factor.disabled', actor, userId, target: { type: 'user', id: userId },
          details: { by_admin: true, authenticator_was_on: user.totpEnabled, passkeys_removed: passkeys, sessions_ended: ended },
        }, clock);
      });
    },
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
