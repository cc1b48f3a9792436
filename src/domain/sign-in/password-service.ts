/**
 * Passwords: the signed-in user's change, and the emailed reset (request and confirm).
 */
import type { Clock } from '../../core/clock.js';
import { DomainError, validationFailed } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { PasswordHasher } from '../identity/passwords.js';
import { recordSecurityEvent } from '../audit/security-events.js';
import type { SessionPolicy } from './sessions.js';
import { normalizeEmail, tokenHash } from '../identity/tokens.js';
import { getUser } from '../identity/users.js';
import { anonymous, asUser, assertPassword, deviceFor, type RequestMeta, type SignedIn } from './auth-shared.js';
import type { AttemptGuard, IdentityStore, Quota } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

export interface ResetMailRequest extends RequestMeta {
  requestId: string;
  email: string;
}

export function createPasswordService(deps: {
  store: Pick<IdentityStore, 'users' | 'passwordResets' | 'events'>; uow: UnitOfWork;
  hasher: PasswordHasher;
  sessionPolicy: SessionPolicy;
  passwordChangeGuard: AttemptGuard;
  resetGuard: AttemptGuard;
  /** Reset mails per account and hour (RESET_MAIL_QUOTA). */
  resetMailQuota: Quota;
  /** Whether this instance can send mail (SVC_SMTP_URL). */
  mailConfigured: boolean;
  /** Hands the reset mail to a worker (job mail.password_reset), durable and retried. */
  enqueueResetMail: (request: ResetMailRequest) => Promise<void>;
  clock: Clock;
}) {
  const { store, clock } = deps;
  return {
    /** Changes the caller's password; every other session of the user ends. */
    async changePassword(
      userId: string, sessionId: string, input: { currentPassword: string; newPassword: string }, meta: RequestMeta,
    ): Promise<void> {
      const user = await getUser(store.users, userId);
      // Keyed by user id: failed sign-ins by others cannot block a signed-in user's change.
      const keys = { account: userId, ip: meta.ip };
      await deps.passwordChangeGuard.attempt(keys);
      if (!(await deps.hasher.verify(input.currentPassword, user.passwordHash))) {
        await recordSecurityEvent(store.events, { type: 'auth.password_changed', outcome: 'failure', reason: 'auth.invalid_credentials', actor: asUser(userId, meta), userId }, clock);
        throw validationFailed([{ field: 'current_password', code: 'validation.invalid', message: 'is not your current password' }]);
      }
      // The current password was right: a rejected new one is no guess and must not count.
      await deps.passwordChangeGuard.succeeded(keys);
      assertPassword(input.newPassword, user.email, 'new_password');
      if (await deps.hasher.verify(input.newPassword, user.passwordHash)) {
        throw validationFailed([{ field: 'new_password', code: 'validation.invalid', message: 'must differ from the current password' }]);
      }
      const passwordHash = await deps.hasher.hash(input.newPassword);
      await deps.uow.run(async (tx) => {
        const now = clock.now();
        await tx.users.update(userId, undefined, { passwordHash, mustChangePassword: false, passwordChangedAt: now }, now);
        const ended = await tx.sessions.revokeAllOf(userId, now, sessionId);
        await tx.passwordResets.expireAllOf(userId, now);
        await recordSecurityEvent(tx.securityEvents, { type: 'auth.password_changed', actor: asUser(userId, meta), userId, target: { type: 'user', id: userId }, details: { sessions_ended: ended } }, clock);
      });
    },

    /**
     * Always the same answer and the same time for the caller, whether or not the address is a
     * user's: the lookup, the token and the mail happen in a worker job.
     */
    async requestPasswordReset(email: string, meta: RequestMeta): Promise<void> {
      if (!deps.mailConfigured) throw new DomainError('mail.not_configured', 'This instance has no SVC_SMTP_URL; ask an admin to reset your password');
      const account = normalizeEmail(email);
      await deps.resetGuard.attempt({ account, ip: meta.ip }); // every request counts
      // Past the account's mail quota the answer stays the same (a 429 would let anyone keep
      // the owner from resetting); the links mailed within the hour still work.
      if (!(await deps.resetMailQuota.take(account))) {
        await recordSecurityEvent(store.events, { type: 'auth.password_reset_requested', outcome: 'failure', reason: 'rate_limited', actor: anonymous(meta), userId: null, details: { email_domain: account.split('@')[1] ?? '' } }, clock);
        return;
      }
      await deps.enqueueResetMail({ requestId: newId(), email, ...meta });
    },

    /**
     * Sets the new password with an emailed token and signs out every session of the user.
     * Answers this browser's svc_device cookie for the account: proving control of the mailbox
     * makes it familiar, so guesses from elsewhere cannot hold its next sign-in back.
     */
    async confirmPasswordReset(input: { token: string; password: string }, meta: RequestMeta): Promise<{ device: SignedIn['device'] }> {
      await deps.resetGuard.attempt({ ip: meta.ip });
      const invalid = new DomainError('auth.reset_token_invalid', 'The link is invalid, used or expired; ask for a new one');
      const reset = await store.passwordResets.findUsable(tokenHash(input.token), clock.now());
      if (!reset) throw invalid;
      const user = await getUser(store.users, reset.userId);
      if (!user.enabled) throw invalid;
      assertPassword(input.password, user.email, 'password');
      const passwordHash = await deps.hasher.hash(input.password);
      return deps.uow.run(async (tx) => {
        const now = clock.now();
        // Single use: only the transaction that marks the token used may set the password.
        if (!(await tx.passwordResets.claim(reset.id, now))) throw invalid;
        const updated = await tx.users.update(user.id, undefined, { passwordHash, mustChangePassword: false, passwordChangedAt: now }, now);
        const ended = await tx.sessions.revokeAllOf(user.id, now);
        await tx.passwordResets.expireAllOf(user.id, now);
        await recordSecurityEvent(tx.securityEvents, { type: 'auth.password_reset_completed', actor: anonymous(meta), userId: user.id, target: { type: 'user', id: user.id }, details: { sessions_ended: ended } }, clock);
        return { device: deviceFor(deps.sessionPolicy.secretKey, updated, now) };
      });
    },
  };
}

export type PasswordService = ReturnType<typeof createPasswordService>;
