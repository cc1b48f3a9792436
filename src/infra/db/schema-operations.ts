/**
 * The operations tables: system problems (opened and resolved, whatever the alert settings say),
 * the alert sends about them, short leases that let exactly one process of the fleet evaluate
 * problems and call the heartbeat, small status rows (the heartbeat's last call), and in-app
 * notifications per user. Part of ./schema.ts, which migrations come from.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { ts, users } from './schema-identity.js';
import { channels } from './schema-reporting.js';

/**
 * One system problem from when it opened to when its check passed again. At most one open row
 * per fingerprint (the kind and the resource): the store decides, so two evaluators can never
 * open it twice.
 */
export const systemProblems = pgTable('system_problems', {
  id: uuid('id').primaryKey(),
  fingerprint: text('fingerprint').notNull(),
  kind: text('kind').notNull(),
  severity: text('severity').$type<'warning' | 'critical'>().notNull(),
  message: text('message').notNull(),
  resourceType: text('resource_type'),
  resourceId: uuid('resource_id'),
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  openedAt: ts('opened_at').notNull(),
  lastSeenAt: ts('last_seen_at').notNull(),
  resolvedAt: ts('resolved_at'),
  lastAlertAt: ts('last_alert_at'),
  alerts: integer('alerts').notNull().default(0),
}, (t) => [
  uniqueIndex('system_problems_open_key').on(t.fingerprint).where(sql`${t.resolvedAt} is null`),
  index('system_problems_opened_idx').on(t.openedAt, t.id),
  check('system_problems_severity_check', sql`${t.severity} in ('warning', 'critical')`),
]);

/** Every alert message sent (or tried) through a channel: about a problem, or a test. */
export const alertSends = pgTable('alert_sends', {
  id: uuid('id').primaryKey(),
  problemId: uuid('problem_id').references(() => systemProblems.id, { onDelete: 'set null' }),
  event: text('event').$type<'opened' | 'repeated' | 'resolved' | 'test'>().notNull(),
  channelId: uuid('channel_id').references(() => channels.id, { onDelete: 'set null' }),
  fallback: integer('fallback').notNull().default(0),
  status: text('status').$type<'sent' | 'failed'>().notNull(),
  error: text('error'),
  createdAt: ts('created_at').notNull(),
}, (t) => [
  index('alert_sends_channel_idx').on(t.channelId, t.createdAt),
  index('alert_sends_problem_idx').on(t.problemId),
  index('alert_sends_created_idx').on(t.createdAt),
  check('alert_sends_event_check', sql`${t.event} in ('opened', 'repeated', 'resolved', 'test')`),
  check('alert_sends_status_check', sql`${t.status} in ('sent', 'failed')`),
]);

/** A lease one process holds for a while (`problems`: the evaluator and the heartbeat). */
export const opsLeases = pgTable('ops_leases', {
  name: text('name').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: ts('expires_at').notNull(),
});

/** Small status records of operations (`heartbeat`: its last success, last error, next call). */
export const opsStatus = pgTable('ops_status', {
  key: text('key').primaryKey(),
  value: jsonb('value').$type<Record<string, unknown>>().notNull().default({}),
  updatedAt: ts('updated_at').notNull(),
});

/**
 * In-app notifications, per user. While one is unread, a repeat of its cause (`dedupe_key`)
 * updates it (count, updated_at) instead of adding another: the store decides with the partial
 * unique index.
 */
export const notifications = pgTable('notifications', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  kind: text('kind').notNull(),
  severity: text('severity').$type<'info' | 'warning' | 'critical'>().notNull(),
  title: text('title').notNull(),
  body: text('body'),
  resourceType: text('resource_type'),
  resourceId: uuid('resource_id'),
  dedupeKey: text('dedupe_key').notNull(),
  count: integer('count').notNull().default(1),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
  readAt: ts('read_at'),
}, (t) => [
  index('notifications_user_idx').on(t.userId, t.updatedAt, t.id),
  uniqueIndex('notifications_unread_key').on(t.userId, t.dedupeKey).where(sql`${t.readAt} is null`),
  check('notifications_severity_check', sql`${t.severity} in ('info', 'warning', 'critical')`),
]);
