/**
 * The outbox in the store (the events domain's Outbox, EventLog and EventHistory): rows written
 * in the change's transaction; the relay's sequencing and publishing marks; the history a client
 * resumes from.
 */
import { and, asc, gt, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import { events } from '../schema.js';
import type { Db, Tx } from '../client.js';

interface OutboxEvent {
  type: string;
  data: Record<string, unknown>;
}

export interface SequencedRow {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

/** Writes events in the transaction (or statement) of `tx`. */
export function outboxRepo(tx: Tx) {
  return {
    async add(list: readonly OutboxEvent[]): Promise<void> {
      if (list.length === 0) return;
      await tx.insert(events).values(list.map((e) => ({ type: e.type, data: e.data })));
    },
  };
}

export function createEventLog(db: Db) {
  return {
    /**
     * In one statement (the store function herald_relay_events, migration 0007), when no other
     * relay holds the store's relay lock: gives seq numbers to committed rows that have none, in
     * insert order (so numbers follow the order rows become visible and never go back), and
     * claims up to `limit` numbered, unpublished rows for publishing (published_at set), answered
     * in seq order. Nothing when another relay holds the lock: it passes again itself.
     */
    async claim(limit: number): Promise<SequencedRow[]> {
      const rows = await db.execute<{ seq: string; type: string; data: Record<string, unknown> }>(sql`select seq, type, data from herald_relay_events(${limit})`);
      return (rows as unknown as Array<{ seq: string; type: string; data: Record<string, unknown> }>)
        .map((r) => ({ seq: Number(r.seq), type: r.type, data: r.data })).sort((a, b) => a.seq - b.seq);
    },

    /** Gives claimed rows back (their publishing failed): the next pass publishes them. */
    async release(seqs: readonly number[]): Promise<void> {
      if (seqs.length === 0) return;
      await db.update(events).set({ publishedAt: null }).where(inArray(events.seq, [...seqs]));
    },

    /** Events after `seq`, in order (a resuming client's history). */
    async since(seq: number, limit: number): Promise<SequencedRow[]> {
      const rows = await db.select({ seq: events.seq, type: events.type, data: events.data }).from(events)
        .where(and(isNotNull(events.seq), gt(events.seq, seq))).orderBy(asc(events.seq)).limit(limit);
      return rows.map((r) => ({ seq: Number(r.seq), type: r.type, data: r.data }));
    },

    /** The newest seq given (0 when none), and the oldest still kept (null when none). */
    async bounds(): Promise<{ latest: number; oldest: number | null }> {
      const [row] = await db.select({ latest: sql<string | null>`max(${events.seq})`, oldest: sql<string | null>`min(${events.seq})` }).from(events);
      return { latest: Number(row?.latest ?? 0), oldest: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest) };
    },

    /** Deletes published events older than `before` (never the newest); answers how many. */
    async purge(before: Date): Promise<number> {
      // The newest row always stays: the next seq is given after it, so numbers never restart.
      const gone = await db.delete(events).where(and(isNotNull(events.publishedAt), lt(events.createdAt, before),
        sql`${events.seq} < (select max(seq) from events)`)).returning({ id: events.id });
      return gone.length;
    },
  };
}

export type EventLog = ReturnType<typeof createEventLog>;
