/**
 * The identity tables of the internal store: users, sessions, API keys, reset links, the audit
 * trail, and the sign-in methods beyond the password (recovery codes, passkeys, sign-in steps,
 * identity-provider links, workspace settings). Part of ./schema.ts, which migrations come from.
 */
import { sql } from 'drizzle-orm';
import {
  bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid,
} from 'drizzle-orm/pg-core';

/** Timestamps with time zone, millisecond precision, as Dates: every table's time columns. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

export const users = pgTable('users', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').notNull(),
  role: text('role').$type<'viewer' | 'editor' | 'admin'>().notNull(),
  enabled: boolean('enabled').notNull().default(true),
  passwordHash: text('password_hash'),
  mustChangePassword: boolean('must_change_password').notNull().default(false),
  preferences: jsonb('preferences').$type<Record<string, string>>().notNull().default({}),
  totpSecret: text('totp_secret'),
  totpEnabled: boolean('totp_enabled').notNull().default(false),
  /** The authenticator-app secret being enrolled (sealed), until a first code confirms it. */
  totpPendingSecret: text('totp_pending_secret'),
  /** The RFC 6238 time step of the last accepted code: codes of that step or earlier are refused (replay). */
  totpLastStep: bigint('totp_last_step', { mode: 'number' }),
  totpEnabledAt: ts('totp_enabled_at'),
  version: integer('version').notNull().default(1),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
  passwordChangedAt: ts('password_changed_at'),
  lastSignInAt: ts('last_sign_in_at'),
}, (t) => [
  uniqueIndex('users_email_key').on(sql`lower(${t.email})`),
  index('users_name_idx').on(t.name, t.id),
  check('users_role_check', sql`${t.role} in ('viewer', 'editor', 'admin')`),
]);

export const sessions = pgTable('sessions', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull(),
  method: text('method').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
  ip: text('ip'),
  userAgent: text('user_agent'),
  revokedAt: ts('revoked_at'),
  /** The second step of a password sign-in: totp, recovery_code or passkey. */
  secondFactor: text('second_factor'),
  /** Signed in by password while the workspace requires a second factor the user does not have yet. */
  mustEnrol: boolean('must_enrol').notNull().default(false),
}, (t) => [
  uniqueIndex('sessions_token_hash_key').on(t.tokenHash),
  index('sessions_user_id_idx').on(t.userId),
]);

export const apiKeys = pgTable('api_keys', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  name: text('name').notNull(),
  prefix: text('prefix').notNull(),
  tokenHash: text('token_hash').notNull(),
  scope: text('scope').$type<'read' | 'run' | 'write' | 'admin'>().notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  expiresAt: ts('expires_at'),
  lastUsedAt: ts('last_used_at'),
  revokedAt: ts('revoked_at'),
}, (t) => [
  uniqueIndex('api_keys_token_hash_key').on(t.tokenHash),
  index('api_keys_user_id_idx').on(t.userId),
  index('api_keys_created_by_idx').on(t.createdBy),
  check('api_keys_scope_check', sql`${t.scope} in ('read', 'run', 'write', 'admin')`),
]);

export const passwordResets = pgTable('password_resets', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
}, (t) => [
  uniqueIndex('password_resets_token_hash_key').on(t.tokenHash),
  index('password_resets_user_id_idx').on(t.userId),
]);

export const securityEvents = pgTable('security_events', {
  id: uuid('id').primaryKey(),
  occurredAt: ts('occurred_at').notNull().defaultNow(),
  type: text('type').notNull(),
  outcome: text('outcome').$type<'success' | 'failure'>().notNull(),
  reason: text('reason'),
  actorType: text('actor_type').$type<'user' | 'api_key' | 'anonymous' | 'system'>().notNull(),
  actorUserId: uuid('actor_user_id'),
  actorApiKeyId: uuid('actor_api_key_id'),
  targetType: text('target_type'),
  targetId: uuid('target_id'),
  subjectUserId: uuid('subject_user_id'),
  ip: text('ip'),
  userAgent: text('user_agent'),
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
}, (t) => [
  index('security_events_type_idx').on(t.type, t.id),
  index('security_events_actor_user_idx').on(t.actorUserId, t.id),
  index('security_events_subject_user_idx').on(t.subjectUserId, t.id),
]);

/** Recovery codes of two-factor sign-in, stored only as hashes; a used code stays as a record. */
export const recoveryCodes = pgTable('recovery_codes', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  codeHash: text('code_hash').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  usedAt: ts('used_at'),
}, (t) => [
  uniqueIndex('recovery_codes_user_code_key').on(t.userId, t.codeHash),
]);

/** WebAuthn credentials (passkeys). */
export const passkeys = pgTable('passkeys', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  /** base64url, as the authenticator names it. */
  credentialId: text('credential_id').notNull(),
  /** COSE public key, base64url. */
  publicKey: text('public_key').notNull(),
  counter: bigint('counter', { mode: 'number' }).notNull().default(0),
  transports: jsonb('transports').$type<string[]>().notNull().default([]),
  deviceType: text('device_type').notNull(),
  backedUp: boolean('backed_up').notNull().default(false),
  aaguid: text('aaguid'),
  name: text('name').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
  lastUsedAt: ts('last_used_at'),
}, (t) => [
  uniqueIndex('passkeys_credential_id_key').on(t.credentialId),
  index('passkeys_user_id_idx').on(t.userId),
]);

/**
 * Short-lived, single-use steps of a sign-in: second-factor tickets, WebAuthn challenges and
 * OIDC authorization flows. Only a hash of the token (or challenge) is kept.
 */
export const authFlows = pgTable('auth_flows', {
  id: uuid('id').primaryKey(),
  kind: text('kind').notNull(),
  tokenHash: text('token_hash').notNull(),
  userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
  data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
  /** Wrong answers given to this step (a ticket ends after a few). */
  failures: integer('failures').notNull().default(0),
  createdAt: ts('created_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
}, (t) => [
  uniqueIndex('auth_flows_token_hash_key').on(t.tokenHash),
  index('auth_flows_expires_at_idx').on(t.expiresAt),
]);

/** Accounts of an identity provider (issuer, subject) linked to users. */
export const userIdentities = pgTable('user_identities', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  issuer: text('issuer').notNull(),
  subject: text('subject').notNull(),
  email: text('email'),
  createdAt: ts('created_at').notNull().defaultNow(),
  lastSignInAt: ts('last_sign_in_at'),
}, (t) => [
  uniqueIndex('user_identities_issuer_subject_key').on(t.issuer, t.subject),
  index('user_identities_user_id_idx').on(t.userId),
]);

/**
 * Workspace-wide settings objects, one row per key ("workspace", "oidc"): the plain part as
 * JSON, the secret fields as one sealed JSON object, with the concurrency version.
 */
export const workspaceSettings = pgTable('workspace_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').$type<Record<string, unknown>>().notNull().default({}),
  secretsSealed: text('secrets_sealed'),
  version: integer('version').notNull().default(1),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});
