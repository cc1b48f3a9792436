/**
 * The internal store's tables (drizzle-orm). Migrations under drizzle/ are generated from this
 * file with `npm run db:generate` and never edited once landed.
 */
import { sql } from 'drizzle-orm';
import {
  boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid,
} from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

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

export interface StoredSchemaSnapshot {
  tables: Array<{
    schema: string; name: string; kind: 'table' | 'view';
    columns: Array<{ name: string; type: string; nullable: boolean }>;
  }>;
}

/** User databases Herald reads from. The password is sealed by the secret box (context connections.password:<id>). */
export const connections = pgTable('connections', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  type: text('type').notNull(),
  host: text('host').notNull(),
  port: integer('port').notNull(),
  database: text('database').notNull(),
  username: text('username').notNull(),
  passwordSealed: text('password_sealed'),
  sslMode: text('ssl_mode').$type<'disable' | 'prefer' | 'require' | 'verify-ca' | 'verify-full'>().notNull(),
  sslCa: text('ssl_ca'),
  options: jsonb('options').$type<Record<string, unknown>>().notNull().default({}),
  /** The last introspection. */
  schemaSnapshot: jsonb('schema_snapshot').$type<StoredSchemaSnapshot>(),
  schemaRefreshedAt: ts('schema_refreshed_at'),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  version: integer('version').notNull().default(1),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  // Also the list order: by name, as people read it (case-insensitive).
  uniqueIndex('connections_name_key').on(sql`lower(${t.name})`),
  index('connections_created_by_idx').on(t.createdBy),
  check('connections_port_check', sql`${t.port} between 1 and 65535`),
]);

export interface StoredQueryParameter {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'timestamp';
  default?: string | number | boolean | null;
  required?: boolean;
  description?: string;
}

/** Named SQL bound to a connection; its sql, connection and parameters are those of version current_version. */
export const queries = pgTable('queries', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  description: text('description'),
  connectionId: uuid('connection_id').notNull().references(() => connections.id, { onDelete: 'restrict' }),
  sql: text('sql').notNull(),
  parameters: jsonb('parameters').$type<StoredQueryParameter[]>().notNull().default([]),
  currentVersion: integer('current_version').notNull().default(1),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  version: integer('version').notNull().default(1),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('queries_name_key').on(sql`lower(${t.name})`),
  index('queries_updated_idx').on(t.updatedAt, t.id),
  index('queries_connection_id_idx').on(t.connectionId),
  index('queries_created_by_idx').on(t.createdBy),
]);

/** Every version of a query's sql, connection and parameters; never changed once written. */
export const queryVersions = pgTable('query_versions', {
  queryId: uuid('query_id').notNull().references(() => queries.id, { onDelete: 'cascade' }),
  number: integer('number').notNull(),
  sql: text('sql').notNull(),
  parameters: jsonb('parameters').$type<StoredQueryParameter[]>().notNull().default([]),
  connectionId: uuid('connection_id').notNull().references(() => connections.id, { onDelete: 'restrict' }),
  restoredFrom: integer('restored_from'),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.queryId, t.number] }),
  index('query_versions_connection_id_idx').on(t.connectionId),
  index('query_versions_created_by_idx').on(t.createdBy),
]);
