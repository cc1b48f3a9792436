/**
 * Signing in and out, first-run setup, password changes and the emailed password reset.
 */
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../infra/db/client.js';
import { passwordResets, users } from '../../infra/db/schema.js';
import type { AttemptGuard, Quota } from '../../infra/ratelimit/attempt-guard.js';
import { DomainError, validationFailed } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { passwordProblems, type PasswordHasher } from './passwords.js';
import { recordSecurityEvent, type Actor } from './security-events.js';
import { expireResetLinks } from './password-resets.js';
import { issueSession, revokeSessionByToken, revokeUserSessions, type IssuedSession, type SessionPolicy } from './sessions.js';
import { countUsers, findUserByEmail, getUser, insertUser, updateUserVersioned, type UserRow } from './users-store.js';
import { deviceCookieName, deviceTokenFor, isDeviceTokenFor, normalizeEmail, tokenHash } from './tokens.js';

const SETUP_LOCK = 7_246_135_002;

export interface RequestMeta {
  ip: string;
  userAgent: string | undefined;
}

export interface AuthDeps {
  db: Db;
  hasher: PasswordHasher;
  sessionPolicy: SessionPolicy;
  signInGuard: AttemptGuard;
  passwordChangeGuard: AttemptGuard;
  resetGuard: AttemptGuard;
  /** Reset mails per account and hour (RESET_MAIL_QUOTA). */
  resetMailQuota: Quota;
  /** Whether this instance can send mail (SVC_SMTP_URL). */
  mailConfigured: boolean;
  /** Hands the reset mail to a worker (job mail.password_reset), durable and retried. */
  enqueueResetMail: (request: { requestId: string; email: string } & RequestMeta) => Promise<void>;
}

export interface SignedIn {
  user: UserRow;
  session: IssuedSession;
  /** A fresh svc_device_<account> cookie for this browser and account. */
  device: { name: string; token: string };
}

const anonymous = (meta: RequestMeta): Actor => ({ type: 'anonymous', ip: meta.ip, userAgent: meta.userAgent });
const asUser = (userId: string, meta: RequestMeta): Actor => ({ type: 'user', userId, ip: meta.ip, userAgent: meta.userAgent });

const setupCompleted = () => new DomainError('setup.completed', 'Setup is already done; sign in instead');

function assertPassword(password: string, email: string | undefined, field: string): void {
  const problems = passwordProblems(password, email, field);
  if (problems.length > 0) throw validationFailed(problems, 'The password does not meet the policy');
}

export function createAuthService(deps: AuthDeps) {
  const { db } = deps;
  const deviceFor = (user: UserRow) => ({ name: deviceCookieName(user.email), token: deviceTokenFor(deps.sessionPolicy.secretKey, user) });
  /** Names the user's current password, for the sign-in throttle's familiar addresses. */
  const familiarTag = (user: UserRow) => `${user.id}:${user.passwordChangedAt?.getTime() ?? 0}`;

  return {
    async needsSetup(): Promise<boolean> {
      return (await countUsers(db)) === 0;
    },

    /** Creates the first admin and signs it in; exactly one of racing setups wins. */
    async setup(input: { name: string; email: string; password: string }, meta: RequestMeta): Promise<SignedIn> {
      // Answer a finished setup before any costly work: otherwise every anonymous POST /setup
      // would buy a bcrypt hash. The count is checked again under the lock.
      if ((await countUsers(db)) > 0) throw setupCompleted();
      assertPassword(input.password, input.email, 'password');
      const passwordHash = await deps.hasher.hash(input.password);
      return db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(${SETUP_LOCK})`);
        if ((await countUsers(tx)) > 0) throw setupCompleted();
        const user = await insertUser(tx, {
          id: newId(), name: input.name.trim(), email: input.email, role: 'admin', passwordHash, mustChangePassword: false, lastSignInAt: new Date(),
        });
        const session = await issueSession(tx, deps.sessionPolicy, { userId: user.id, method: 'setup', ...meta });
        await recordSecurityEvent(tx, { type: 'setup.completed', actor: asUser(user.id, meta), userId: user.id, target: { type: 'user', id: user.id } });
        await recordSecurityEvent(tx, { type: 'user.created', actor: asUser(user.id, meta), userId: user.id, target: { type: 'user', id: user.id }, details: { role: 'admin' } });
        return { user, session, device: deviceFor(user) };
      });
    },

    /**
     * Email and password. Any previous session of this browser is revoked (rotation). Failures
     * are recorded with their reason and slow down further attempts progressively; a browser
     * that signed in to this account before (svc_device) is spared the account-wide delay.
     */
    async login(
      input: { email: string; password: string }, meta: RequestMeta,
      browser: { sessionToken?: string | undefined; deviceTokens?: Readonly<Record<string, string>> } = {},
    ): Promise<SignedIn> {
      const email = normalizeEmail(input.email);
      const user = await findUserByEmail(db, email);
      const deviceToken = browser.deviceTokens?.[deviceCookieName(email)];
      const keys = {
        account: email, ip: meta.ip,
        knownDevice: !!user && isDeviceTokenFor(deps.sessionPolicy.secretKey, deviceToken, user),
        familiarTag: user ? familiarTag(user) : undefined,
      };
      try {
        await deps.signInGuard.attempt(keys);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'rate_limited') {
          await recordSecurityEvent(db, { type: 'auth.sign_in', outcome: 'failure', reason: 'rate_limited', actor: anonymous(meta), userId: user?.id ?? null, details: { email_domain: email.split('@')[1] ?? '' } });
        }
        throw err;
      }
      const ok = await deps.hasher.verify(input.password, user?.passwordHash ?? null);
      if (!user || !ok || !user.enabled) {
        const reason = !user ? 'auth.unknown_user' : !ok ? 'auth.invalid_credentials' : 'auth.user_disabled';
        await recordSecurityEvent(db, { type: 'auth.sign_in', outcome: 'failure', reason, actor: anonymous(meta), userId: user?.id ?? null });
        throw new DomainError('auth.invalid_credentials', 'The email or password is wrong');
      }
      await deps.signInGuard.succeeded(keys);
      return db.transaction(async (tx) => {
        if (browser.sessionToken) await revokeSessionByToken(tx, browser.sessionToken);
        const session = await issueSession(tx, deps.sessionPolicy, { userId: user.id, method: 'password', ...meta });
        const [fresh] = await tx.update(users).set({ lastSignInAt: new Date() }).where(eq(users.id, user.id)).returning();
        await recordSecurityEvent(tx, { type: 'auth.sign_in', actor: asUser(user.id, meta), userId: user.id, target: { type: 'session', id: session.id }, details: { method: 'password' } });
        return { user: fresh!, session, device: deviceFor(user) };
      });
    },

    async logout(userId: string, sessionId: string, token: string, meta: RequestMeta): Promise<void> {
      await db.transaction(async (tx) => {
        await revokeSessionByToken(tx, token);
        await recordSecurityEvent(tx, { type: 'auth.sign_out', actor: asUser(userId, meta), userId, target: { type: 'session', id: sessionId } });
      });
    },

    /** Changes the caller's password; every other session of the user ends. */
    async changePassword(
      userId: string, sessionId: string, input: { currentPassword: string; newPassword: string }, meta: RequestMeta,
    ): Promise<void> {
      const user = await getUser(db, userId);
      // Keyed by user id: failed sign-ins by others cannot block a signed-in user's change.
      const keys = { account: userId, ip: meta.ip };
      await deps.passwordChangeGuard.attempt(keys);
      if (!(await deps.hasher.verify(input.currentPassword, user.passwordHash))) {
        await recordSecurityEvent(db, { type: 'auth.password_changed', outcome: 'failure', reason: 'auth.invalid_credentials', actor: asUser(userId, meta), userId });
        throw validationFailed([{ field: 'current_password', code: 'validation.invalid', message: 'is not your current password' }]);
      }
      // The current password was right: a rejected new one is no guess and must not count.
      await deps.passwordChangeGuard.succeeded(keys);
      assertPassword(input.newPassword, user.email, 'new_password');
      if (await deps.hasher.verify(input.newPassword, user.passwordHash)) {
        throw validationFailed([{ field: 'new_password', code: 'validation.invalid', message: 'must differ from the current password' }]);
      }
      const passwordHash = await deps.hasher.hash(input.newPassword);
      await db.transaction(async (tx) => {
        await updateUserVersioned(tx, userId, undefined, { passwordHash, mustChangePassword: false, passwordChangedAt: new Date() });
        const ended = await revokeUserSessions(tx, userId, sessionId);
        await expireResetLinks(tx, userId);
        await recordSecurityEvent(tx, { type: 'auth.password_changed', actor: asUser(userId, meta), userId, target: { type: 'user', id: userId }, details: { sessions_ended: ended } });
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
        await recordSecurityEvent(db, { type: 'auth.password_reset_requested', outcome: 'failure', reason: 'rate_limited', actor: anonymous(meta), userId: null, details: { email_domain: account.split('@')[1] ?? '' } });
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
      const [reset] = await db.select().from(passwordResets).where(and(
        eq(passwordResets.tokenHash, tokenHash(input.token)), isNull(passwordResets.usedAt), gt(passwordResets.expiresAt, new Date()),
      ));
      if (!reset) throw invalid;
      const user = await getUser(db, reset.userId);
      if (!user.enabled) throw invalid;
      assertPassword(input.password, user.email, 'password');
      const passwordHash = await deps.hasher.hash(input.password);
      return db.transaction(async (tx) => {
        // Single use: only the transaction that marks the token used may set the password.
        const [claimed] = await tx.update(passwordResets).set({ usedAt: new Date() })
          .where(and(eq(passwordResets.id, reset.id), isNull(passwordResets.usedAt))).returning({ id: passwordResets.id });
        if (!claimed) throw invalid;
        const updated = await updateUserVersioned(tx, user.id, undefined, { passwordHash, mustChangePassword: false, passwordChangedAt: new Date() });
        const ended = await revokeUserSessions(tx, user.id);
        await expireResetLinks(tx, user.id);
        await recordSecurityEvent(tx, { type: 'auth.password_reset_completed', actor: anonymous(meta), userId: user.id, target: { type: 'user', id: user.id }, details: { sessions_ended: ended } });
        return { device: deviceFor(updated) };
      });
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
