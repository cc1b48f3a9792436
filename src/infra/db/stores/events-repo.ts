/**
 * The outbox in the store (the events domain's Outbox, EventLog and EventHistory): rows written
 * in the change's transaction; the relay's sequencing and publishing marks; the history a client
 * resumes from.
 */
import { and, asc, gt, isNotNull, isNull, lt, sql } from 'drizzle-orm';
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

/** Any constant shared by every Herald process: the lock under which seq numbers are given. */
const SEQUENCE_LOCK = 7_246_135_003;

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
     * Gives seq numbers to committed rows that have none, in insert order, under one lock for the
     * whole store (so numbers are given in the order the rows become visible and never go back);
     * answers how many.
     */
    async sequence(limit: number): Promise<number> {
      return db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(${SEQUENCE_LOCK})`);
        const rows = await tx.select({ id: events.id }).from(events).where(isNull(events.seq)).orderBy(asc(events.id)).limit(limit);
        if (rows.length === 0) return 0;
        const [top] = await tx.select({ max: sql<string | null>`max(${events.seq})` }).from(events);
        const base = Number(top?.max ?? 0);
        await tx.execute(sql`
          update events e set seq = ${base} + v.n
            from unnest(${sql.raw(`array[${rows.map((r) => Number(r.id)).join(',')}]::bigint[]`)}) with ordinality as v(id, n)
           where e.id = v.id`);
        return rows.length;
      });
    },

    /** Sequenced rows not yet published, in seq order. */
    async unpublished(limit: number): Promise<SequencedRow[]> {
      const rows = await db.select({ seq: events.seq, type: events.type, data: events.data }).from(events)
        .where(and(isNotNull(events.seq), isNull(events.publishedAt))).orderBy(asc(events.seq)).limit(limit);
      return rows.map((r) => ({ seq: Number(r.seq), type: r.type, data: r.data }));
    },

    async markPublished(upTo: number, at: Date): Promise<void> {
      await db.update(events).set({ publishedAt: at })
        .where(and(isNotNull(events.seq), isNull(events.publishedAt), sql`${events.seq} <= ${upTo}`));
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
