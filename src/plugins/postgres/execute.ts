/**
 * One read-only statement on a reserved pooled connection (the dialect part of a SqlRun; the
 * stream around it is src/plugins/shared/sql-stream.ts):
 *   BEGIN READ ONLY + SET LOCAL statement_timeout / idle_in_transaction_session_timeout and the
 *     value formats and search_path (our text; per transaction, so they hold through PgBouncer);
 *   Describe the user's statement (extended protocol: Parse refuses a second statement, and a
 *     statement that returns no rows (SET ROLE, DDL, COPY, INSERT without RETURNING, …) is refused
 *     before it ever runs);
 *   run it through the extended protocol into a portal and fetch batchSize rows at a time
 *     (postgres.js .cursor()); or, for a statement without parameters that COPY takes, read its
 *     rows through COPY (…) TO STDOUT in the same transaction (copy.ts): no round trip per batch;
 *   after the last row: refuse the result if the transaction wrote anything (it was given a
 *     transaction id, e.g. lo_create) or holds advisory locks; then ROLLBACK, always, and
 *     pg_advisory_unlock_all() so a session lock never outlives the statement.
 * Cancelling sends a cancel request for the fetch in flight and closes the portal.
 */
import { DomainError } from '../../core/errors.js';
import { abortReason } from '../../core/abort.js';
import type { CellValue, NdjsonBatch, ResultColumn, Statement } from '../../domain/plugins/connector.js';
import type { SqlRunOptions } from '../shared/sql-connector.js';
import { notReadOnly } from '../shared/sql-errors.js';
import { cancellable, decodeRow, type SqlRun } from '../shared/sql-stream.js';
import type { Readable } from 'node:stream';
import { extended, type Param } from './client.js';
import type { Reserved } from './pool.js';
import type { TypeCatalog } from './types.js';
import { textDecoderFor, type Decoder, type TextDecoder } from './values.js';
import { CopyReader, copyEligible, copyRows, copyStatement } from './copy.js';
import { copyColumns, copyNdjson, shortestFloats, type CopyColumns } from './copy-ndjson.js';

type Raw = Array<Buffer | null>;
/** A statement's Describe as postgres.js answers it. */
interface Described { columns?: unknown[]; types?: unknown[] }
/** A result column as described. */
interface Field { name: string; type: number }
/** A COPY sent (sendCopy), before its rows start. */
interface SentCopy { query: ReturnType<Reserved['unsafe']>; reader: CopyReader; readable: Promise<Readable> }
/** The read-only check's answer (check()). */
interface CheckRow { wrote: boolean; locked: boolean }

/** Every run ends with it: the transaction undone, and a session lock never outlives the statement. */
const ROLLBACK = 'rollback; select pg_advisory_unlock_all()';

const noop = (): void => undefined;

/**
 * Cancels a query on the server once postgres.js has sent it. (A query still waiting in a
 * reserved connection's queue must not be cancelled: postgres.js would drop it without ever
 * taking the next one, our ROLLBACK, off that queue.)
 */
async function cancelWhenSent(query: unknown): Promise<void> {
  const q = query as { state?: unknown; active?: boolean; cancel(): unknown };
  for (let i = 0; i < 400 && !q.state; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  if (q.state && q.active) await Promise.resolve(q.cancel()).catch(noop);
}

/**
 * Awaits a postgres.js query; on abort cancels it on the server and throws the signal's reason.
 * (Not awaited, a postgres.js query is never sent; so an early abort just does not await it.)
 * `track` is given the cancel request under way: the connection must not go back to the pool
 * before it is done, or a cancel that arrives late stops the next statement of whoever takes
 * the connection (PostgreSQL cancels whatever its backend runs, not a given statement).
 */
export function pgCancellable<T>(query: Promise<T>, signal: AbortSignal, track?: (cancelling: Promise<void>) => void): Promise<T> {
  return cancellable(signal, () => query, () => {
    const cancelling = cancelWhenSent(query);
    track?.(cancelling);
  });
}

/** `settings`: the SET LOCALs every transaction starts with (client.ts transactionSettings). */
export function postgresRun(conn: Reserved, types: TypeCatalog, statement: Statement, options: SqlRunOptions, settings: string): SqlRun {
  return run(conn, types, statement, options, settings, false) as SqlRun;
}

/**
 * The same, its rows written as NDJSON lines from COPY's bytes (copy-ndjson.ts): for a statement
 * COPY takes; undefined for any other (the caller then uses postgresRun).
 */
export function postgresNdjsonRun(conn: Reserved, types: TypeCatalog, statement: Statement, options: SqlRunOptions, settings: string): SqlRun<NdjsonBatch> | undefined {
  if (!copyEligible(statement.sql, statement.params)) return undefined;
  return run(conn, types, statement, options, settings, true) as SqlRun<NdjsonBatch>;
}

function run(conn: Reserved, types: TypeCatalog, statement: Statement, options: SqlRunOptions, settings: string, ndjson: boolean): SqlRun<CellValue[][] | NdjsonBatch> {
  const { signal, timeoutMs, batchSize } = options;
  const idleMs = Math.max(timeoutMs, 10_000);
  const params: readonly Param[] = statement.params;

  let columns: ResultColumn[] = [];
  let decoders: Decoder[] = [];
  let query: ReturnType<typeof extended>;
  let iterator: AsyncIterator<Raw[]>;
  /**
   * The COPY statement, its reader and the rows read past the last batch, when the rows come
   * through COPY; and its columns' NDJSON rules when the run answers NDJSON lines.
   */
  let copy: { query: ReturnType<Reserved['unsafe']>; reader: CopyReader; decoders: TextDecoder[]; pending: CellValue[][]; ndjson?: CopyColumns } | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  let fetching = false; // a fetch is on its way
  let suspended = false; // a batch arrived and the portal waits for the next fetch
  /** Cancel requests under way: close() waits for them before the connection goes back. */
  const cancelling = new Set<Promise<void>>();
  /** Cancel requests this run sent (a late one may still reach the server: see close()). */
  let cancelsSent = 0;
  /** The ROLLBACK sent with the check, when it was: true once it succeeded. */
  let rolledBack: Promise<boolean> = Promise.resolve(false);
  /**
   * The check sent right behind the COPY (its rows, or its error once the COPY failed or was
   * cancelled), when it was: see open().
   */
  let checkSent: Promise<{ rows?: CheckRow[]; error?: unknown }> | undefined;
  /** Whether the statement wrote or holds advisory locks (`.then` sends a postgres.js query: sent now). */
  const sendCheck = (): Promise<CheckRow[]> => (extended(
    conn, `select txid_current_if_assigned() is not null as wrote,
            exists (select 1 from pg_catalog.pg_locks where locktype = 'advisory' and pid = pg_backend_pid()) as locked`,
  ) as unknown as Promise<CheckRow[]>).then((rows) => rows);
  const track = (p: Promise<void>): void => {
    cancelsSent += 1;
    cancelling.add(p);
    void p.finally(() => cancelling.delete(p));
  };
  const begin = `begin transaction read only; set local statement_timeout = ${timeoutMs}; set local idle_in_transaction_session_timeout = ${idleMs}; ${settings}`;

  /** The statement's columns, once its Describe shows it takes the values given and returns rows. */
  const refuseUnlessRows = (described: Described): Field[] => {
    const expected = described.types?.length ?? 0;
    if (expected !== params.length) {
      throw new DomainError('query.failed', `The statement has ${expected} placeholders but ${params.length} values were given`);
    }
    const fields = (described.columns ?? []) as Field[];
    if (fields.length === 0) {
      throw notReadOnly('Herald runs read-only statements that return rows (SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN, FETCH); this statement returns none');
    }
    return fields;
  };

  /**
   * Sends the COPY, then the check and the ROLLBACK: postgres.js pipelines a reserved connection's
   * queries sent in one turn, so they go in the COPY's write and the server runs them once the
   * COPY is done (the check then sees what the statement did), a round trip less. After a COPY
   * that failed or was cancelled they fail (the transaction is aborted); close() then rolls back
   * as it always did.
   */
  const sendCopy = (guarded = false): SentCopy => {
    // Guarded (openInOneWrite, sent before BEGIN has answered): the COPY's query starts with a
    // SAVEPOINT, which PostgreSQL refuses outside a transaction block, an implicit one of a
    // query of several statements included. Inside BEGIN's transaction it changes nothing (the
    // ROLLBACK undoes it with the rest, and it logs nothing, where a second BEGIN would log a
    // warning on the user's server every run); in a transaction a failed SET aborted, the query
    // fails before the COPY; and should BEGIN's query have failed before BEGIN ran (a cancel
    // request taken between its statements), it fails and the COPY never runs, as it never did
    // on the usual path. So the COPY runs only inside the run's read-only transaction.
    const copyQuery = conn.unsafe(guarded ? `savepoint herald_copy; ${copyStatement(statement.sql)}` : copyStatement(statement.sql));
    const reader = new CopyReader();
    reader.watch(copyQuery);
    const readable = copyQuery.readable() as unknown as Promise<Readable>;
    readable.catch(noop); // awaited by copyStarted; its failure is the COPY's, handled there
    // Sent now: readable() sends it only once its promise settles, a turn of microtasks later,
    // which would put the check and the ROLLBACK below ahead of it (the COPY would then run
    // after the ROLLBACK, outside the read-only transaction; the read-only tests catch that order).
    copyQuery.execute();
    checkSent = sendCheck().then((rows) => ({ rows }), (error: unknown) => ({ error }));
    rolledBack = conn.unsafe(ROLLBACK).then(() => true, () => false);
    return { query: copyQuery, reader, readable };
  };

  /** Waits for the COPY's rows to start (or its failure), then reads them as the run's. */
  const copyStarted = async (sent: SentCopy, fields: Field[], stopCopy?: () => void): Promise<void> => {
    // `stopCopy` (openInOneWrite's): a COPY sent behind its Describe is cancelled once it runs,
    // where cancelWhenSent would send nothing while the Describe's answer is still coming.
    const stop = stopCopy ?? ((): void => { track(cancelWhenSent(sent.query)); });
    try {
      await cancellable(signal, () => sent.readable, stop);
    } catch (err) {
      // Stopped while the COPY was under way (or failed by itself): stop it, once, and read
      // what is left, so that the answers behind it (the ROLLBACK close() waits for) can come.
      if (signal.aborted && (stopCopy || cancelsSent === 0)) stop();
      await Promise.all([...cancelling]);
      await sent.reader.drain();
      throw err;
    }
    copy = { query: sent.query, reader: sent.reader, decoders: fields.map((f) => textDecoderFor(f.type)), pending: [] };
    if (ndjson) copy.ndjson = copyColumns(fields.map((f) => f.type), shortestFloats(conn.server?.server_version));
  };

  /**
   * A statement COPY takes that this pool described before: BEGIN, its Describe, its COPY, the
   * check and the ROLLBACK go in one write, sent in that order now (postgres.js sends a query a
   * turn of microtasks after it is first executed or awaited, in that order). A run then makes
   * one write and one round trip to the database instead of two.
   *
   * Nothing runs outside a read-only transaction that is rolled back. Should BEGIN's query fail
   * once BEGIN ran (one of its SETs), the transaction is aborted and the Describe and the COPY
   * fail with it. Should it fail before BEGIN ran (a cancel request the server takes between the
   * query's statements), the COPY's own query fails before the COPY (sendCopy's guard), and
   * open() fails with BEGIN's error. The text is exactly one statement: it parsed alone before
   * on this pool (a Describe), and a Describe that now fails aborts the transaction the COPY
   * would run in.
   *
   * The COPY runs before its Describe is read. When the Describe then refuses the statement (its
   * placeholders, no rows), or BEGIN failed, or the run was stopped, the COPY is stopped and what
   * it sent read and dropped, and open() fails as it would have. False when its columns now have
   * a type the catalog does not know (the statement changed meaning since): its rows were read
   * and dropped (no cancel request, which could land on what runs next; a stop meanwhile sends
   * one), the transaction rolled back, and the caller opens it again the usual way.
   */
  const openInOneWrite = async (): Promise<boolean> => {
    if (signal.aborted) throw abortReason(signal);
    const beginning = conn.unsafe(begin).execute();
    const describing = extended(conn, statement.sql, params).describe();
    (describing as unknown as { execute(): unknown }).execute();
    const sent = sendCopy(true);
    /** The COPY failed before its rows started. */
    let failedEarly = false;
    sent.readable.then(noop, () => { failedEarly = true; });
    const over = () => failedEarly || sent.reader.done;
    let copyCancelled = false;
    /**
     * Cancels the COPY once it is what the server runs (postgres.js marks a pipelined query active
     * when the one before it is answered), unless it is over first: a cancel request sent while
     * the Describe still ran would stop that instead, and the COPY would run on.
     */
    const cancelCopy = (): void => {
      if (copyCancelled) return;
      copyCancelled = true;
      const q = sent.query as unknown as { active?: boolean; cancel(): unknown };
      track((async () => {
        while (!over() && !q.active) await new Promise((resolve) => setTimeout(resolve, 5));
        if (!over()) await Promise.resolve(q.cancel()).catch(noop);
      })());
    };
    /**
     * The COPY stopped (when `stop`, or once the run is, even before its rows start) and what it
     * sent read and dropped; the ROLLBACK behind it then comes.
     */
    const dropCopy = async (stop: boolean): Promise<void> => {
      signal.addEventListener('abort', cancelCopy, { once: true });
      try {
        if (stop || signal.aborted) cancelCopy();
        if (await sent.readable.then(() => true, () => false)) await sent.reader.drain();
        await Promise.all([...cancelling]);
      } finally {
        signal.removeEventListener('abort', cancelCopy);
      }
    };
    let fields: Field[];
    try {
      const [, described] = await Promise.all([
        pgCancellable(beginning, signal, track), pgCancellable(describing as unknown as Promise<Described>, signal, track),
      ]);
      fields = refuseUnlessRows(described);
    } catch (err) {
      await dropCopy(true);
      throw err;
    }
    const resolved = types.known(fields.map((f) => f.type));
    if (!resolved) {
      await dropCopy(false);
      if (signal.aborted) throw abortReason(signal);
      await checkSent;
      const undone = await rolledBack;
      checkSent = undefined;
      rolledBack = Promise.resolve(false);
      if (!undone) await conn.unsafe(ROLLBACK);
      return false;
    }
    columns = fields.map((f, i) => ({ name: f.name, type: resolved[i]!.name }));
    decoders = resolved.map((r) => r.decode);
    await copyStarted(sent, fields, cancelCopy);
    return true;
  };

  return {
    get columns() { return columns; },

    async open() {
      if (copyEligible(statement.sql, params) && types.describedBefore(statement.sql)) {
        if (await openInOneWrite()) return;
        // Its columns now have types the catalog does not know: the usual way looks them up.
      }
      // BEGIN and the Describe in one write: postgres.js pipelines a reserved connection's
      // queries, in the order they are awaited. Should BEGIN fail, the Describe after it only
      // describes (nothing runs) and open() fails with BEGIN's error.
      const beginning = pgCancellable(conn.unsafe(begin), signal, track);
      const describing = extended(conn, statement.sql, params).describe();
      const [, described] = await Promise.all([
        beginning, pgCancellable(describing as unknown as Promise<Described>, signal, track),
      ]);
      const fields = refuseUnlessRows(described);
      const resolved = await types.resolve(conn, fields.map((f) => f.type), signal);
      columns = fields.map((f, i) => ({ name: f.name, type: resolved[i]!.name }));
      decoders = resolved.map((r) => r.decode);
      if (copyEligible(statement.sql, params)) {
        types.described(statement.sql);
        // Nothing is sent for a run stopped meanwhile (the type lookup above does not look at
        // the signal): once the COPY goes out, its rows must be read for the ROLLBACK behind it
        // to be answered.
        if (signal.aborted) throw abortReason(signal);
        await copyStarted(sendCopy(), fields);
        return;
      }
      query = extended(conn, statement.sql, params);
      query.raw();
      if (signal.aborted) throw abortReason(signal);
      iterator = (query.cursor(batchSize) as unknown as AsyncIterable<Raw[]>)[Symbol.asyncIterator]();
    },

    async fetch() {
      if (copy?.ndjson) {
        const { reader, ndjson: lines } = copy;
        fetching = true;
        try {
          // A chunk of whole lines as it arrived (its size is the driver's, not batchSize).
          const bytes = await cancellable(signal, () => reader.lineBytes(), () => { track(cancelWhenSent(copy!.query)); });
          return bytes === null ? null : copyNdjson(bytes, lines);
        } finally {
          fetching = false;
        }
      }
      if (copy) {
        const { reader, decoders: textDecoders } = copy;
        fetching = true;
        try {
          // At most batchSize rows: the lines of a chunk past it wait for the next fetch.
          while (copy.pending.length < batchSize) {
            const text = await cancellable(signal, () => reader.lines(), () => { track(cancelWhenSent(copy!.query)); });
            if (text === null) break;
            const more = copyRows(text, textDecoders);
            if (copy.pending.length === 0) copy.pending = more;
            else for (const row of more) copy.pending.push(row);
          }
          if (copy.pending.length === 0) return null;
          if (copy.pending.length <= batchSize) { const rows = copy.pending; copy.pending = []; return rows; }
          const rows = copy.pending.slice(0, batchSize);
          copy.pending = copy.pending.slice(batchSize);
          return rows;
        } finally {
          fetching = false;
        }
      }
      suspended = false;
      fetching = true;
      const next = Promise.resolve(iterator.next());
      inFlight = next.catch(noop);
      try {
        const r = await next;
        if (r.done) return null;
        suspended = true;
        return r.value.map((raw) => decodeRow(raw, decoders));
      } finally {
        fetching = false;
      }
    },

    async cancel() {
      if (copy) {
        if (!copy.reader.done) {
          const request = cancelWhenSent(copy.query);
          track(request);
          await request;
          // Read what is left, so that postgres.js sees the statement's end (a stream left
          // unread pauses the connection).
          await copy.reader.drain();
        }
        return;
      }
      if (fetching) {
        const request = cancelWhenSent(query);
        track(request);
        await request;
        await inFlight;
      }
      if (suspended) { suspended = false; void iterator.return?.(); }
    },

    async check() {
      let check: CheckRow | undefined;
      if (checkSent) {
        const sent = await checkSent;
        if (sent.error !== undefined) throw sent.error;
        [check] = sent.rows!;
      } else {
        const checked = sendCheck();
        // The ROLLBACK rides in the check's write when no cancel request was sent (close() then
        // has only to give the connection back); after one, close() rolls back as it always did.
        if (cancelsSent === 0) rolledBack = conn.unsafe(ROLLBACK).then(() => true, () => false);
        [check] = await checked;
      }
      if (check?.wrote) throw notReadOnly('Herald runs read-only statements only: this statement wrote to the database (it was rolled back)');
      if (check?.locked) throw notReadOnly('Herald runs read-only statements only: this statement took advisory locks (they were released)');
    },

    /**
     * ROLLBACK (twice if a late cancel request hit the first) and give the connection back, once
     * every cancel request of this run is done (a later one would stop the next user's statement).
     */
    async close() {
      try {
        const cancelled = cancelsSent > 0;
        await Promise.all([...cancelling]);
        for (let attempt = (await rolledBack) ? 3 : 0; attempt < 3; attempt += 1) {
          try { await conn.unsafe(ROLLBACK); break; } catch { /* retried */ }
        }
        // A cancel request reaches the server's process through a process of its own, so it may
        // land after its request answered: on a connection that sent one, a short statement takes
        // what is still coming before the next user's statement could.
        for (let attempt = 0; cancelled && attempt < 3; attempt += 1) {
          try { await conn.unsafe('select pg_sleep(0.05)'); break; } catch { /* a late cancel hit it: again */ }
        }
      } finally {
        conn.release();
      }
    },
  };
}
