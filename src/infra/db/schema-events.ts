/**
 * The transactional outbox: every change event is a row written in the transaction of the change
 * it tells of. `id` orders the inserts; `seq` is given under one lock for the whole store, so it
 * has no gaps and never goes back: it is the id a client resumes from (SSE Last-Event-ID). A
 * unit of work writes its events in its last statement (herald_insert_events, migration 0019)
 * and, when no one else holds that lock, inserts them numbered there, after numbering every
 * committed row still without a number, so a change's events never come before those of a change
 * it followed; otherwise the relays number committed rows in id order, woken at commit by the
 * inserting statement's trigger (NOTIFY herald_events) when it left rows without a number.
 * `user_id`, when set, is the one user
 * whose event streams may carry the event (no foreign key: the history outlives its readers and
 * must not lose rows, which would leave a gap in `seq`). Part of ./schema.ts, which migrations
 * come from.
 */
import { bigint, bigserial, index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { ts } from './schema-identity.js';

export const events = pgTable('events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  seq: bigint('seq', { mode: 'number' }),
  type: text('type').notNull(),
  data: jsonb('data').$type<Record<string, unknown>>().notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  publishedAt: ts('published_at'),
  userId: uuid('user_id'),
}, (t) => [
  uniqueIndex('events_seq_key').on(t.seq),
  index('events_unsequenced_idx').on(t.id).where(sql`${t.seq} is null`),
  index('events_unpublished_idx').on(t.seq).where(sql`${t.seq} is not null and ${t.publishedAt} is null`),
  index('events_created_idx').on(t.createdAt),
]);
