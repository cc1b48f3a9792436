/**
 * The outbox in the store (the events domain's Outbox, EventLog and EventHistory): rows written
 * in the change's transaction; the relay's sequencing and publishing marks; the history a client
 * resumes from.
 */
import { and, asc, gt, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import { events } from '../schema.js';
import type { Db, Tx } from '../client.js';
import type { Outbox } from '../../../domain/events/ports.js';

export interface SequencedRow {
  seq: number;
  type: string;
  data: Record<string, unknown>;
  /** Set when only this user's streams may carry the event. */
  userId?: string;
}

type Row = { seq: string; type: string; data: Record<string, unknown>; user_id: string | null };
const sequenced = (rows: unknown): SequencedRow[] => (rows as Row[])
  .map((r) => ({ seq: Number(r.seq), type: r.type, data: r.data, ...(r.user_id ? { userId: r.user_id } : {}) }))
  .sort((a, b) => a.seq - b.seq);

/** Writes events outside a transaction: each add is its own statement, left to the relays to number. */
export function outboxRepo(db: Db): Outbox {
  return {
    async add(list) {
      if (list.length === 0) return;
      await db.insert(events).values(list.map((e) => ({ type: e.type, data: e.data, userId: e.userId ?? null })));
    },
  };
}

/**
 * An event as the outbox keeps it until the unit of work's last statement: its JSON for the store,
 * made when added, and the event itself, which is published once the store has numbered it.
 */
export interface PendingEvent { json: string; event: Omit<SequencedRow, 'seq'> }

/**
 * The outbox of a unit of work's transaction (`tx`): the events it adds are kept (as JSON, made
 * when added) and written by its last statement, which numbers them too (`numberWritten`: one
 * round trip for both). A nested unit of work (a savepoint) has an outbox of its own; when its
 * savepoint is released, the enclosing one adopts its events (so the outermost writes them all,
 * once, at its end), and when it is rolled back they are dropped with it.
 */
export function transactionOutbox(tx: Tx): Outbox & {
  numberWritten(): Promise<SequencedRow[]>; readonly wrote: boolean; readonly pending: readonly PendingEvent[];
  adopt(events: readonly PendingEvent[]): void; truncate(length: number): void;
} {
  const pending: PendingEvent[] = [];
  return {
    async add(list) {
      // Checked here, as the store would check the row, so that an event it would refuse fails the
      // work that adds it (a nested unit of work alone), not the whole transaction at its end.
      const made = list.map(pendingEvent);
      pending.push(...made);
    },
    /**
     * The transaction's last statement, when it has events: writes them in the order added (one
     * parameter whatever the count: a tick of the scheduler adds a thousand at once) and, when no
     * one else holds the numbering lock (the store function herald_insert_events, migration 0019;
     * herald_write_events of migration 0017 stays for processes of the code before), numbers every
     * committed row still without a number and inserts its own numbered (one row version each),
     * and claims them all for publishing, so that the writer publishes
     * them itself right after its commit; answers nothing at once when the lock is taken (the
     * relays number them after the commit). Only inside a transaction: the lock and the numbers
     * last until its commit.
     */
    async numberWritten(): Promise<SequencedRow[]> {
      if (pending.length === 0) return [];
      const rows = await tx.execute(sql`select seq, type, data, user_id from herald_insert_events(${`[${pending.map((p) => p.json).join(',')}]`}::jsonb)`) as unknown as Row[];
      // Rows of earlier writers come whole; this one's own come as their numbers only (migration
      // 0019), given in the order added: the n-th smallest is the n-th event.
      const earlier = sequenced(rows.filter((r) => r.type !== null));
      const own = rows.filter((r) => r.type === null).map((r) => Number(r.seq)).sort((a, b) => a - b);
      if (own.length === 0) return earlier;
      if (own.length !== pending.length) throw new Error(`the store numbered ${own.length} of the ${pending.length} events written`);
      return [...earlier, ...own.map((seq, i) => ({ seq, ...pending[i]!.event }))];
    },
    /** Whether this transaction has events (its own, and those of the nested units of work it adopted). */
    get wrote(): boolean { return pending.length > 0; },
    /** The events added (and adopted), in order. */
    get pending(): readonly PendingEvent[] { return pending; },
    /** Takes over the events a nested unit of work added, once its savepoint is released. */
    adopt(events) { pending.push(...events); },
    /** Drops the events added after the first `length`. */
    truncate(length) { pending.length = Math.min(pending.length, length); },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An event's row as JSON, refused as the store would refuse it: no type, no data, a user id that is no UUID, U+0000 (jsonb takes none). */
function pendingEvent(e: { type: string; data: Record<string, unknown>; userId?: string | undefined }): PendingEvent {
  const userId = e.userId ?? null;
  if (typeof e.type !== 'string' || e.type === '') throw new Error('an event needs a type');
  if (userId !== null && !UUID.test(userId)) throw new Error(`an event's user id is not a UUID: ${userId}`);
  const json = JSON.stringify({ type: e.type, data: e.data, user_id: userId });
  if (e.data === undefined || e.data === null) throw new Error(`the event ${e.type} has no data`);
  if (/(^|[^\\])(\\\\)*\\u0000/.test(json)) throw new Error(`the event ${e.type} holds U+0000, which the store refuses`);
  return { json, event: { type: e.type, data: e.data, ...(userId !== null ? { userId } : {}) } };
}

export function createEventLog(db: Db) {
  return {
    /**
     * In one statement (the store function herald_relay_events, migrations 0007 and 0008), once
     * it holds the store's numbering lock (waiting for a writer or another relay that holds it):
     * gives seq numbers to committed rows that have none, in insert order (so numbers follow the
     * order rows become visible and never go back), and claims up to `limit` numbered,
     * unpublished rows for publishing (published_at set), answered in seq order.
     */
    async claim(limit: number): Promise<SequencedRow[]> {
      return sequenced(await db.execute(sql`select seq, type, data, user_id from herald_relay_events(${limit})`));
    },

    /** Gives claimed rows back (their publishing failed): the next pass publishes them. */
    async release(seqs: readonly number[]): Promise<void> {
      if (seqs.length === 0) return;
      await db.update(events).set({ publishedAt: null }).where(inArray(events.seq, [...seqs]));
    },

    /** Events after `seq`, in order (a resuming client's history). */
    async since(seq: number, limit: number): Promise<SequencedRow[]> {
      const rows = await db.select({ seq: events.seq, type: events.type, data: events.data, userId: events.userId }).from(events)
        .where(and(isNotNull(events.seq), gt(events.seq, seq))).orderBy(asc(events.seq)).limit(limit);
      return rows.map((r) => ({ seq: Number(r.seq), type: r.type, data: r.data, ...(r.userId ? { userId: r.userId } : {}) }));
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
