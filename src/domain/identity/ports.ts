/**
 * The ports of the identity domain: what it needs from the outside, declared here and
 * implemented by adapters (src/infra/db/stores for the store, src/infra/ratelimit for the
 * throttles, src/infra/mail for mail), wired by the composition roots. Each repository is bound
 * to a transaction or to the database; `transaction` hands out repositories bound to one.
 */
import type { Page, PageRequest } from '../../core/cursor.js';
import type {
  ApiKeyRecord, AuthFlowRecord, IdentityLinkRecord, KeyWithOwner, LiveSession, NewApiKey, NewUser, PasskeyRecord,
  PasswordResetRecord, SecurityEventRecord, SessionRecord, SettingsRecord, User, UserChanges,
} from './model.js';

export interface UsersRepo {
  find(id: string): Promise<User | undefined>;
  /** By normalised address (normalizeEmail), compared with lower(email), the unique key. */
  findByEmail(normalizedEmail: string): Promise<User | undefined>;
  count(): Promise<number>;
  /** Throws validation.failed (email, validation.unique) when the address is taken. */
  insert(user: NewUser): Promise<User>;
  /**
   * Applies changes when `version` is current (always when undefined), bumps version and
   * updated_at; not_found for an unknown id, conflict.version for a stale version.
   */
  update(id: string, version: number | undefined, changes: UserChanges, now: Date): Promise<User>;
  /** Records a sign-in (last_sign_in_at) without counting it as a change of the user (no version bump). */
  markSignedIn(id: string, at: Date): Promise<User>;
  /** Accepts an authenticator code's time step once: false when it is not later than the last accepted one (replay). */
  acceptTotpStep(id: string, step: number): Promise<boolean>;
  /** Enabled admins, locked for the rest of the transaction (serialises last-admin checks). */
  lockEnabledAdmins(): Promise<string[]>;
  /** By name, then id. */
  list(q: PageRequest): Promise<Page<User>>;
}

export interface SessionsRepo {
  insert(session: Omit<SessionRecord, 'revokedAt'>): Promise<void>;
  /** The session of a token hash, unless revoked, expired, idle since `idleSince` or its user disabled. */
  findLive(tokenHash: string, now: Date, idleSince: Date): Promise<LiveSession | undefined>;
  touch(id: string, now: Date): Promise<void>;
  listActive(userId: string, now: Date, idleSince: Date): Promise<SessionRecord[]>;
  /** The user now has a second factor: their sessions stop waiting for enrolment. */
  clearMustEnrol(userId: string): Promise<void>;
  /** Revokes one session of a user; false when there is no such live session. */
  revoke(userId: string, sessionId: string, now: Date): Promise<boolean>;
  /** Revokes every live session of a user but `keep`; returns how many ended. */
  revokeAllOf(userId: string, now: Date, keep?: string): Promise<number>;
  /** Revokes the session of a token hash; returns its user id when there was one. */
  revokeByTokenHash(tokenHash: string, now: Date): Promise<string | undefined>;
  /** Deletes up to `batch` sessions revoked or expired before `deadBefore`, or idle since `idleBefore`. */
  deleteDead(deadBefore: Date, idleBefore: Date, batch: number): Promise<number>;
}

export interface ApiKeysRepo {
  insert(key: NewApiKey): Promise<ApiKeyRecord>;
  findWithOwner(tokenHash: string): Promise<KeyWithOwner | undefined>;
  touch(id: string, now: Date): Promise<void>;
  /** Revokes (keeps the first revocation time); undefined for an unknown id. */
  revoke(id: string, now: Date): Promise<ApiKeyRecord | undefined>;
  /** Newest first. */
  list(q: PageRequest & { ownerId?: string | undefined }): Promise<Page<ApiKeyRecord>>;
}

export interface PasswordResetsRepo {
  /** Stores a reset link unless one with the same token hash exists; true when stored. */
  insertOnce(reset: Omit<PasswordResetRecord, 'usedAt'>): Promise<boolean>;
  /** The unused, unexpired link of a token hash. */
  findUsable(tokenHash: string, now: Date): Promise<PasswordResetRecord | undefined>;
  /** Marks a link used; false when it was used already (single use). */
  claim(id: string, now: Date): Promise<boolean>;
  /** Every unused link of a user stops working. */
  expireAllOf(userId: string, now: Date): Promise<void>;
  /** Deletes up to `batch` links expired before `before`. */
  deleteExpired(before: Date, batch: number): Promise<number>;
}

export interface SecurityEventsRepo {
  insert(event: SecurityEventRecord): Promise<void>;
  /** Newest first; `userId` matches the subject or the actor. */
  list(q: PageRequest & { type?: string | undefined; userId?: string | undefined }): Promise<Page<SecurityEventRecord>>;
}

export interface RecoveryCodesRepo {
  /** Replaces every code of a user with these hashes. */
  replace(userId: string, hashes: string[], now: Date): Promise<void>;
  /** Uses an unused code once; false when there is none of that hash. */
  use(userId: string, codeHash: string, now: Date): Promise<boolean>;
  remaining(userId: string): Promise<number>;
  removeAll(userId: string): Promise<void>;
}

export interface PasskeysRepo {
  /** Throws passkey.already_registered for a credential id that is registered. */
  insert(row: Omit<PasskeyRecord, 'lastUsedAt'> & { lastUsedAt?: Date | null }): Promise<PasskeyRecord>;
  listOf(userId: string): Promise<PasskeyRecord[]>;
  countOf(userId: string): Promise<number>;
  findByCredentialId(credentialId: string): Promise<PasskeyRecord | undefined>;
  findOf(userId: string, id: string): Promise<PasskeyRecord | undefined>;
  /** not_found for a passkey the user does not have. */
  rename(userId: string, id: string, name: string, now: Date): Promise<PasskeyRecord>;
  /** Stores the new counter when the stored one is still `seenCounter`; false when another use won. */
  recordUse(id: string, seenCounter: number, newCounter: number, now: Date): Promise<boolean>;
  remove(userId: string, id: string): Promise<PasskeyRecord | undefined>;
  removeAllOf(userId: string): Promise<number>;
}

export interface AuthFlowsRepo {
  insert(row: Omit<AuthFlowRecord, 'failures' | 'usedAt'>): Promise<void>;
  findUsable(kind: string, tokenHash: string, now: Date): Promise<AuthFlowRecord | undefined>;
  /** Uses an unused, unexpired flow once. */
  consume(kind: string, tokenHash: string, now: Date): Promise<AuthFlowRecord | undefined>;
  /** Marks a flow used; false when it was used already. */
  claim(id: string, now: Date): Promise<boolean>;
  /** Counts a wrong answer; the flow ends once `max` is reached. Returns the failures so far. */
  fail(id: string, max: number, now: Date): Promise<number>;
  endAllOf(userId: string, kinds: string[], now: Date): Promise<void>;
  deleteDead(before: Date, batch: number): Promise<number>;
}

export interface IdentityLinksRepo {
  find(issuer: string, subject: string): Promise<IdentityLinkRecord | undefined>;
  /** Idempotent: an existing link of the same issuer and subject is returned. */
  insert(row: Omit<IdentityLinkRecord, 'lastSignInAt'> & { lastSignInAt?: Date | null }): Promise<IdentityLinkRecord>;
  linkedTo(userId: string, issuer: string): Promise<IdentityLinkRecord | undefined>;
  touch(id: string, email: string | null, now: Date): Promise<void>;
}

export interface SettingsRepo {
  get(key: string): Promise<SettingsRecord | undefined>;
  /** Writes when `version` is current (1 for an object never written); conflict.version otherwise. */
  put(key: string, version: number, value: Record<string, unknown>, secretsSealed: string | null, now: Date): Promise<SettingsRecord>;
}

export interface IdentityRepos {
  users: UsersRepo;
  sessions: SessionsRepo;
  apiKeys: ApiKeysRepo;
  passwordResets: PasswordResetsRepo;
  events: SecurityEventsRepo;
  recoveryCodes: RecoveryCodesRepo;
  passkeys: PasskeysRepo;
  flows: AuthFlowsRepo;
  identityLinks: IdentityLinksRepo;
  settings: SettingsRepo;
}

/**
 * The repositories bound to the database: reads, and single statements that stand alone (a failed
 * sign-in's security event). A change with its audit record goes through the unit of work
 * (src/domain/unit-of-work/ports.ts), whose TxRepos holds the same repositories bound to one
 * transaction.
 */
export type IdentityStore = IdentityRepos;

/** Abuse protection (implemented on Redis by src/infra/ratelimit/attempt-guard.ts). */
export interface AttemptKeys {
  account?: string | undefined;
  ip: string;
  /** The client proved an earlier successful sign-in to this account: no account-wide delay. */
  knownDevice?: boolean;
  /**
   * Names the account's current password (e.g. user id and password change time). A success
   * remembers the address under it; an attempt from an address remembered under the same tag
   * skips the account-wide delay. A new password makes every remembered address a stranger.
   */
  familiarTag?: string | undefined;
}

export interface AttemptGuard {
  /** Counts this attempt; throws rate_limited (with retryAfterSeconds) when it must wait. */
  attempt(keys: AttemptKeys): Promise<void>;
  /** The attempt succeeded: the account's counters start again. */
  succeeded(keys: AttemptKeys): Promise<void>;
}

export interface Quota {
  /** Takes one unit of `key`'s quota; false when none is left in the window. */
  take(key: string): Promise<boolean>;
}

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: OutgoingMail): Promise<void>;
}

/** Where the password hashing work happens (bcrypt in ./passwords.ts). */
export type { PasswordHasher } from './passwords.js';
