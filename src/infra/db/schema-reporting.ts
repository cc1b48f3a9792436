/**
 * The reporting tables of the internal store: connections, queries and their versions, reports,
 * runs, idempotency keys, channels, deliveries and their attempts, links and their downloads.
 * Part of ./schema.ts, which migrations come from.
 */
import { sql } from 'drizzle-orm';
import {
  bigint, boolean, check, customType, type AnyPgColumn, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid,
} from 'drizzle-orm/pg-core';
import { ts, users } from './schema-identity.js';
import type { SchemaSnapshot } from '../../domain/plugins/connector.js';
import type { QueryParameter } from '../../domain/queries/parameters.js';
import type { Condition } from '../../domain/reports/model.js';
import type { RunStatus, RunStep } from '../../domain/runs/model.js';
import type { AttemptSend } from '../../domain/channels/model.js';
import type { GitopsDrift, GitopsError } from '../../domain/config/ports.js';

/** An attempt's request as stored (jsonb): its time as ISO text. */
export type StoredAttemptSend = Omit<AttemptSend, 'at'> & { at: string };

/** User databases Herald reads from. The password is sealed by the secret box (context connections.password:<id>). */
export const connections = pgTable('connections', {
  id: uuid('id').primaryKey(),
  /** The resource's key in configuration files (core/slug.ts: resourceKeyOf). */
  key: text('key').notNull(),
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
  schemaSnapshot: jsonb('schema_snapshot').$type<SchemaSnapshot>(),
  schemaRefreshedAt: ts('schema_refreshed_at'),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  version: integer('version').notNull().default(1),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  // Also the list order: by name, as people read it (case-insensitive).
  uniqueIndex('connections_name_key').on(sql`lower(${t.name})`),
  uniqueIndex('connections_key_key').on(t.key),
  index('connections_created_by_idx').on(t.createdBy),
  check('connections_port_check', sql`${t.port} between 1 and 65535`),
]);

/** Named SQL bound to a connection; its sql, connection and parameters are those of version current_version. */
export const queries = pgTable('queries', {
  id: uuid('id').primaryKey(),
  /** The resource's key in configuration files (core/slug.ts: resourceKeyOf). */
  key: text('key').notNull(),
  name: text('name').notNull(),
  description: text('description'),
  connectionId: uuid('connection_id').notNull().references(() => connections.id, { onDelete: 'restrict' }),
  sql: text('sql').notNull(),
  parameters: jsonb('parameters').$type<QueryParameter[]>().notNull().default([]),
  currentVersion: integer('current_version').notNull().default(1),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  version: integer('version').notNull().default(1),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('queries_name_key').on(sql`lower(${t.name})`),
  uniqueIndex('queries_key_key').on(t.key),
  index('queries_updated_idx').on(t.updatedAt, t.id),
  index('queries_connection_id_idx').on(t.connectionId),
  index('queries_created_by_idx').on(t.createdBy),
]);

/** Every version of a query's sql, connection and parameters; never changed once written. */
export const queryVersions = pgTable('query_versions', {
  queryId: uuid('query_id').notNull().references(() => queries.id, { onDelete: 'cascade' }),
  number: integer('number').notNull(),
  sql: text('sql').notNull(),
  parameters: jsonb('parameters').$type<QueryParameter[]>().notNull().default([]),
  connectionId: uuid('connection_id').notNull().references(() => connections.id, { onDelete: 'restrict' }),
  restoredFrom: integer('restored_from'),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.queryId, t.number] }),
  index('query_versions_connection_id_idx').on(t.connectionId),
  index('query_versions_created_by_idx').on(t.createdBy),
]);

/**
 * A query on a schedule (or on demand) with a condition. next_run_at is the scheduler's truth:
 * null when paused or without a schedule; the partial index keeps a tick's cost to the due ones.
 */
export const reports = pgTable('reports', {
  id: uuid('id').primaryKey(),
  /** The resource's key in configuration files (core/slug.ts: resourceKeyOf). */
  key: text('key').notNull(),
  title: text('title').notNull(),
  description: text('description'),
  queryId: uuid('query_id').notNull().references(() => queries.id, { onDelete: 'restrict' }),
  /** A pinned query version, or null for the query's current one. */
  queryVersion: integer('query_version'),
  parameters: jsonb('parameters').$type<Record<string, string | number | boolean | null>>().notNull().default({}),
  scheduleCron: text('schedule_cron'),
  scheduleTimezone: text('schedule_timezone'),
  condition: jsonb('condition').$type<Condition>(),
  paused: boolean('paused').notNull().default(false),
  nextRunAt: ts('next_run_at'),
  /** The newest run (any trigger), for lists; kept by the run engine and the API. */
  lastRunId: uuid('last_run_id').references((): AnyPgColumn => runs.id, { onDelete: 'set null' }),
  ownerId: uuid('owner_id').references(() => users.id, { onDelete: 'set null' }),
  version: integer('version').notNull().default(1),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  // The list order: by title as people read it, then id.
  index('reports_title_idx').on(sql`lower(${t.title})`, t.id),
  uniqueIndex('reports_key_key').on(t.key),
  index('reports_query_id_idx').on(t.queryId),
  index('reports_owner_id_idx').on(t.ownerId),
  index('reports_due_idx').on(t.nextRunAt).where(sql`${t.nextRunAt} is not null and not ${t.paused}`),
  // The foreign key's index (a run's delete finds the report it was last of) and the dashboard's
  // reports whose last run failed (a merge with runs_failed_idx, never a scan of runs).
  index('reports_last_run_idx').on(t.lastRunId),
  check('reports_schedule_check', sql`(${t.scheduleCron} is null) = (${t.scheduleTimezone} is null)`),
]);

/** A run's step as its jsonb column keeps it: the domain's RunStep with its times as ISO text. */
export type StoredRunStep = Omit<RunStep, 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string | null };

/**
 * One execution of a report. A scheduled run carries its slot (the schedule's time), unique per
 * report, so that racing schedulers can never make the same slot twice.
 */
export const runs = pgTable('runs', {
  id: uuid('id').primaryKey(),
  reportId: uuid('report_id').notNull().references(() => reports.id, { onDelete: 'cascade' }),
  trigger: text('trigger').$type<'schedule' | 'manual' | 'test'>().notNull(),
  status: text('status').$type<RunStatus>().notNull().default('pending'),
  deliver: boolean('deliver').notNull().default(true),
  slot: ts('slot'),
  parameters: jsonb('parameters').$type<Record<string, string | number | boolean | null>>().notNull().default({}),
  condition: jsonb('condition').$type<Condition>(),
  conditionMet: boolean('condition_met'),
  queryVersion: integer('query_version'),
  rowCount: integer('row_count'),
  columns: jsonb('columns').$type<Array<{ name: string; type: string }>>(),
  sample: jsonb('sample').$type<Array<Array<string | number | boolean | null>>>(),
  steps: jsonb('steps').$type<StoredRunStep[]>().notNull().default([]),
  errorCode: text('error_code'),
  errorMessage: text('error_message'),
  /** The stored result file's key in the artifact store, and its size and content hash. */
  resultKey: text('result_key'),
  resultBytes: bigint('result_bytes', { mode: 'number' }),
  resultHash: text('result_hash'),
  attempts: integer('attempts').notNull().default(0),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: ts('created_at').notNull().defaultNow(),
  startedAt: ts('started_at'),
  finishedAt: ts('finished_at'),
  cancelRequestedAt: ts('cancel_requested_at'),
  /** The store's time when the worker holding the run last said it is alive (its lease). */
  heartbeatAt: ts('heartbeat_at'),
  /**
   * Set when the run's query and result file are done and its deliveries became jobs of their
   * own: the run stays running (no worker holds it; its attempts do) until they settle.
   */
  deliveringSince: ts('delivering_since'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('runs_report_slot_key').on(t.reportId, t.slot),
  index('runs_created_idx').on(t.createdAt, t.id),
  index('runs_report_created_idx').on(t.reportId, t.createdAt, t.id),
  index('runs_unfinished_idx').on(t.status, t.createdAt).where(sql`${t.status} in ('pending', 'running')`),
  index('runs_created_by_idx').on(t.createdBy),
  // The dashboard: runs that finished in the last 24 hours, and the latest failures.
  index('runs_finished_idx').on(t.finishedAt).where(sql`${t.finishedAt} is not null`),
  index('runs_failures_idx').on(t.finishedAt, t.id).where(sql`${t.status} in ('failed', 'partial')`),
  // The dashboard's reports whose last run failed: the failed runs' ids, small beside runs_pkey.
  index('runs_failed_idx').on(t.id).where(sql`${t.status} = 'failed'`),
  check('runs_trigger_check', sql`${t.trigger} in ('schedule', 'manual', 'test')`),
  check('runs_status_check', sql`${t.status} in ('pending', 'running', 'success', 'partial', 'skipped', 'failed', 'cancelled')`),
]);

/** PostgreSQL's bytea, as a Buffer. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/**
 * A small result file kept in the store instead of the artifact store (src/infra/artifacts/
 * inline-results.ts): the same gzip NDJSON bytes, written by the statement that ends the run (or
 * hands it to its deliveries), so a run of a few rows makes no file, upload or rename. The run's
 * result_key says where its file is (`db:` for here); the row goes with the run, and retention
 * deletes it with the run's key.
 */
export const runResults = pgTable('run_results', {
  runId: uuid('run_id').primaryKey().references(() => runs.id, { onDelete: 'cascade' }),
  bytes: bytea('bytes').notNull(),
});

/**
 * Idempotency-Key records: one per (caller, operation, key), with a hash of the request, for 24
 * hours. The row is written in the transaction that makes the run, so concurrent repeats wait
 * on the key and then find the first one's run.
 */
export const idempotencyKeys = pgTable('idempotency_keys', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  operation: text('operation').notNull(),
  key: text('key').notNull(),
  requestHash: text('request_hash').notNull(),
  runId: uuid('run_id').references(() => runs.id, { onDelete: 'cascade' }),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.userId, t.operation, t.key] }),
  index('idempotency_keys_created_idx').on(t.createdAt),
  index('idempotency_keys_run_id_idx').on(t.runId),
]);

/**
 * Delivery destinations. `settings` holds the plugin's plain settings; every secret field of the
 * plugin (x-secret) lives sealed in `secrets_sealed` (one JSON object, context
 * channels.secrets:<id>). Health and the last error follow the latest delivery attempt.
 */
export const channels = pgTable('channels', {
  id: uuid('id').primaryKey(),
  /** The resource's key in configuration files (core/slug.ts: resourceKeyOf). */
  key: text('key').notNull(),
  name: text('name').notNull(),
  type: text('type').notNull(),
  settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
  secretsSealed: text('secrets_sealed'),
  health: text('health').$type<'healthy' | 'failing' | 'unknown'>().notNull().default('unknown'),
  lastError: jsonb('last_error').$type<{ code: string; message: string; at: string } | null>(),
  lastAttemptAt: ts('last_attempt_at'),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  version: integer('version').notNull().default(1),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('channels_name_key').on(sql`lower(${t.name})`),
  uniqueIndex('channels_key_key').on(t.key),
  index('channels_name_idx').on(sql`lower(${t.name})`, t.id),
]);

/** A report's ordered deliveries: positions 1..n without gaps. */
export const deliveries = pgTable('deliveries', {
  id: uuid('id').primaryKey(),
  reportId: uuid('report_id').notNull().references(() => reports.id, { onDelete: 'cascade' }),
  channelId: uuid('channel_id').notNull().references(() => channels.id, { onDelete: 'restrict' }),
  position: integer('position').notNull(),
  settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
  version: integer('version').notNull().default(1),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  index('deliveries_report_idx').on(t.reportId, t.position),
  index('deliveries_channel_idx').on(t.channelId),
]);

/**
 * One send of one delivery for one run (its resends update it in place, keeping the id that
 * peers see as the message id). Unique per (run, delivery), so a run taken again after a lost
 * worker finds what was already sent.
 */
export const deliveryAttempts = pgTable('delivery_attempts', {
  id: uuid('id').primaryKey(),
  runId: uuid('run_id').notNull().references(() => runs.id, { onDelete: 'cascade' }),
  deliveryId: uuid('delivery_id').references(() => deliveries.id, { onDelete: 'set null' }),
  channelId: uuid('channel_id').references(() => channels.id, { onDelete: 'set null' }),
  channelName: text('channel_name').notNull(),
  channelType: text('channel_type').notNull(),
  position: integer('position').notNull(),
  status: text('status').$type<'pending' | 'sending' | 'sent' | 'failed' | 'queued' | 'preview'>().notNull(),
  sends: integer('sends').notNull().default(0),
  startedAt: ts('started_at'),
  finishedAt: ts('finished_at'),
  statusCode: integer('status_code'),
  peerMessageId: text('peer_message_id'),
  detail: text('detail'),
  error: jsonb('error').$type<{ code: string; message: string } | null>(),
  preview: jsonb('preview').$type<Record<string, unknown> | null>(),
  /** Every request of the attempt, oldest first (times as ISO text); ends and hand-backs append. */
  history: jsonb('history').$type<StoredAttemptSend[]>().notNull().default([]),
  /** When the automatic retry schedule sends this failed attempt again (null: none planned). */
  nextRetryAt: ts('next_retry_at'),
  /** Automatic retries planned so far (the step of the schedule the next one takes). */
  retries: integer('retries').notNull().default(0),
  /** The id of the queue job that carries it now (the sweep looks it up when it seems stuck). */
  jobId: text('job_id'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
}, (t) => [
  uniqueIndex('delivery_attempts_run_delivery_key').on(t.runId, t.deliveryId),
  index('delivery_attempts_open_idx').on(t.updatedAt).where(sql`${t.status} in ('pending', 'sending', 'queued')`),
  index('delivery_attempts_retry_idx').on(t.nextRetryAt).where(sql`${t.nextRetryAt} is not null`),
  index('delivery_attempts_run_idx').on(t.runId, t.position),
  index('delivery_attempts_channel_idx').on(t.channelId, t.finishedAt),
]);

/**
 * Shared links to a run's result file. The token is stored only as its SHA-256 (token_hash);
 * the link is active until expires_at or revoked_at.
 */
export const links = pgTable('links', {
  id: uuid('id').primaryKey(),
  tokenHash: text('token_hash').notNull(),
  runId: uuid('run_id').notNull().references(() => runs.id, { onDelete: 'cascade' }),
  reportId: uuid('report_id').notNull().references(() => reports.id, { onDelete: 'cascade' }),
  format: text('format').$type<'csv' | 'xlsx' | 'json'>().notNull(),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  /** The delivery attempt that made it, for links sent by a delivery. */
  attemptId: uuid('attempt_id').references(() => deliveryAttempts.id, { onDelete: 'set null' }),
  createdAt: ts('created_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
  revokedAt: ts('revoked_at'),
  revokedBy: uuid('revoked_by').references(() => users.id, { onDelete: 'set null' }),
  downloadCount: integer('download_count').notNull().default(0),
  lastDownloadedAt: ts('last_downloaded_at'),
}, (t) => [
  uniqueIndex('links_token_hash_key').on(t.tokenHash),
  index('links_created_idx').on(t.createdAt, t.id),
  index('links_run_idx').on(t.runId),
]);

/** The download log of shared links. */
export const linkDownloads = pgTable('link_downloads', {
  id: uuid('id').primaryKey(),
  linkId: uuid('link_id').notNull().references(() => links.id, { onDelete: 'cascade' }),
  at: ts('at').notNull(),
  clientAddress: text('client_address').notNull(),
  userAgent: text('user_agent'),
}, (t) => [
  index('link_downloads_link_idx').on(t.linkId, t.at),
]);

/**
 * What configuration as code manages: a resource an import created (so a later import with prune
 * may delete it) or one the configuration directory (SVC_GITOPS_DIR) defines, with its file, and
 * whether an admin detached it from the directory. One row per managed resource.
 */
export const configManaged = pgTable('config_managed', {
  kind: text('kind').$type<'connection' | 'query' | 'channel' | 'report'>().notNull(),
  resourceId: uuid('resource_id').notNull(),
  managedBy: text('managed_by').$type<'import' | 'gitops'>().notNull(),
  path: text('path'),
  detachedAt: ts('detached_at'),
  detachedBy: uuid('detached_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: ts('created_at').notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.kind, t.resourceId] }),
  check('config_managed_kind_check', sql`${t.kind} in ('connection', 'query', 'channel', 'report')`),
  check('config_managed_by_check', sql`${t.managedBy} in ('import', 'gitops')`),
]);

/**
 * The reconciler of the configuration directory (SVC_GITOPS_DIR): one row, written by the
 * scheduler that reconciled last, read by GET /gitops/status on every API process. `generation`
 * moves with each detach and attach; `applied_hash`/`applied_generation` are those of the last
 * successful reconcile (a tick with the same files and generation has nothing to do).
 */
export const gitopsState = pgTable('gitops_state', {
  id: integer('id').primaryKey().default(1),
  directory: text('directory'),
  lastReconcileAt: ts('last_reconcile_at'),
  result: text('result').$type<'applied' | 'unchanged' | 'failed'>(),
  errors: jsonb('errors').$type<GitopsError[]>().notNull().default([]),
  drift: jsonb('drift').$type<GitopsDrift[]>().notNull().default([]),
  appliedHash: text('applied_hash'),
  appliedGeneration: bigint('applied_generation', { mode: 'number' }).notNull().default(0),
  generation: bigint('generation', { mode: 'number' }).notNull().default(0),
}, (t) => [
  check('gitops_state_one_row', sql`${t.id} = 1`),
  check('gitops_state_result_check', sql`${t.result} in ('applied', 'unchanged', 'failed')`),
]);
