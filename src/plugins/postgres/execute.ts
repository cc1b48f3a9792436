/**
 * One read-only statement on a reserved pooled connection:
 *   BEGIN READ ONLY + SET LOCAL statement_timeout / idle_in_transaction_session_timeout (our text);
 *   Describe the user's statement (extended protocol: Parse refuses a second statement, and a
 *     statement that returns no rows (SET ROLE, DDL, COPY, INSERT without RETURNING, …) is refused
 *     before it ever runs);
 *   run it through the extended protocol into a portal and fetch batchSize rows at a time, one
 *     batch ahead of the consumer (postgres.js .cursor());
 *   after the last row: refuse the result if the transaction wrote anything (it was given a
 *     transaction id, e.g. lo_create) or holds advisory locks; then ROLLBACK, always, and
 *     pg_advisory_unlock_all() so a session lock never outlives the statement.
 * Cancelling (the signal, or the consumer leaving the loop) sends a cancel request for the fetch
 * in flight, closes the portal and rolls back.
 */
import { DomainError } from '../../core/errors.js';
import { abortReason } from '../../core/abort.js';
import type { CellValue, ExecuteOptions, ResultColumn, RowStream, Statement } from '../../domain/plugins/connector.js';
import { extended, type Param, type PgSql } from './client.js';
import { statementError } from './errors.js';
import type { TypeCatalog } from './types.js';
import type { Decoder } from './values.js';

type Reserved = Awaited<ReturnType<PgSql['reserve']>>;
type Raw = Array<Buffer | null>;

const noop = (): void => undefined;

export { abortReason };

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

/** Awaits a driver promise; on abort cancels it on the server and throws the signal's reason. */
export async function cancellable<T>(query: Promise<T>, signal: AbortSignal): Promise<T> {
  // Not awaited, a postgres.js query is never sent; so an early abort just does not await it.
  if (signal.aborted) throw abortReason(signal);
  const onAbort = (): void => { void cancelWhenSent(query); };
  signal.addEventListener('abort', onAbort, { once: true });
  let result: T;
  try {
    result = await query;
  } catch (err) {
    if (signal.aborted) throw abortReason(signal);
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  // Aborted after the server had answered: the caller must not go on.
  if (signal.aborted) throw abortReason(signal);
  return result;
}

function notReadOnly(message: string): DomainError {
  return new DomainError('query.not_read_only', message);
}

export async function executeOn(
  conn: Reserved, types: TypeCatalog, statement: Statement, options: ExecuteOptions,
): Promise<RowStream> {
  const { signal } = options;
  const timeoutMs = Math.max(1, Math.floor(options.timeoutMs));
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  const idleMs = Math.max(timeoutMs, 10_000);
  const params: readonly Param[] = statement.params;

  let released = false;
  /** ROLLBACK (twice if a late cancel request hit the first) and give the connection back. */
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    try {
      for (let attempt = 0; attempt < 3; attempt += 1) {
        try { await conn.unsafe('rollback; select pg_advisory_unlock_all()'); break; } catch { /* retried */ }
      }
    } finally {
      conn.release();
    }
  };

  let columns: ResultColumn[];
  let decoders: Decoder[];
  let query: ReturnType<typeof extended>;
  let iterator: AsyncIterator<Raw[]>;
  try {
    await cancellable(conn.unsafe(
      `begin transaction read only; set local statement_timeout = ${timeoutMs}; set local idle_in_transaction_session_timeout = ${idleMs}`,
    ), signal);
    const describing = extended(conn, statement.sql, params).describe();
    const described = await cancellable(describing as unknown as Promise<{ columns?: unknown[]; types?: unknown[] }>, signal);
    const expected = described.types?.length ?? 0;
    if (expected !== params.length) {
      throw new DomainError('query.failed', `The statement has ${expected} placeholders but ${params.length} values were given`);
    }
    const fields = (described.columns ?? []) as Array<{ name: string; type: number }>;
    if (fields.length === 0) {
      throw notReadOnly('Herald runs read-only statements that return rows (SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN, FETCH); this statement returns none');
    }
    const resolved = await types.resolve(conn, fields.map((f) => f.type), signal);
    columns = fields.map((f, i) => ({ name: f.name, type: resolved[i]!.name }));
    decoders = resolved.map((r) => r.decode);
    query = extended(conn, statement.sql, params);
    query.raw();
    if (signal.aborted) throw abortReason(signal);
    iterator = (query.cursor(batchSize) as unknown as AsyncIterable<Raw[]>)[Symbol.asyncIterator]();
  } catch (err) {
    await release();
    throw signal.aborted ? abortReason(signal) : statementError(err);
  }

  const decode = (rows: Raw[]): CellValue[][] => {
    const out = new Array<CellValue[]>(rows.length);
    for (let r = 0; r < rows.length; r += 1) {
      const raw = rows[r]!;
      const row = new Array<CellValue>(raw.length);
      for (let c = 0; c < raw.length; c += 1) {
        const v = raw[c];
        row[c] = v === null || v === undefined ? null : decoders[c]!(v);
      }
      out[r] = row;
    }
    return out;
  };

  /** After the last row: refuse writes and session locks, then roll back. */
  const finish = async (): Promise<void> => {
    try {
      const [check] = await extended(
        conn, `select txid_current_if_assigned() is not null as wrote,
                exists (select 1 from pg_catalog.pg_locks where locktype = 'advisory' and pid = pg_backend_pid()) as locked`,
      ) as unknown as Array<{ wrote: boolean; locked: boolean }>;
      if (check?.wrote) throw notReadOnly('Herald runs read-only statements only: this statement wrote to the database (it was rolled back)');
      if (check?.locked) throw notReadOnly('Herald runs read-only statements only: this statement took advisory locks (they were released)');
    } finally {
      await release();
    }
  };

  let pending: Promise<IteratorResult<Raw[]>> = Promise.resolve({ done: true, value: undefined });
  let fetching = false; // a fetch is on its way
  let suspended = false; // a batch arrived and the portal waits for the next fetch
  let finishing: Promise<void> | null = null;
  let tearingDown: Promise<void> | null = null;

  /** Asks for the next batch (one ahead of the consumer); after the last, starts finish(). */
  const fetchNext = (): Promise<IteratorResult<Raw[]>> => {
    suspended = false;
    fetching = true;
    const p = Promise.resolve(iterator.next()).then((r) => {
      fetching = false;
      if (r.done) {
        // finish() may reject (a write, an advisory lock) before the consumer comes for it: a
        // handler now, so that rejection is never unhandled; the consumer still awaits it.
        if (!finishing) { finishing = finish(); finishing.catch(noop); }
      } else suspended = true;
      return r;
    }, (err: unknown) => {
      fetching = false;
      throw err;
    });
    p.catch(noop);
    pending = p;
    return p;
  };

  /** Stops early: cancels the fetch in flight on the server, closes the portal, rolls back. Idempotent. */
  const teardown = (): Promise<void> => {
    tearingDown ??= (async () => {
      if (fetching) {
        await cancelWhenSent(query);
        await pending.catch(noop);
      }
      if (finishing) { await finishing.catch(noop); return; }
      if (suspended) { suspended = false; void iterator.return?.(); }
      await release();
    })();
    return tearingDown;
  };

  const onAbort = (): void => { void teardown(); };
  // The listener is added before the first fetch and after the last check above: nothing in between awaits.
  signal.addEventListener('abort', onAbort, { once: true });
  const stopped = (): boolean => signal.aborted || tearingDown !== null;
  const fail = (err: unknown): unknown => (signal.aborted ? abortReason(signal) : statementError(err));

  // The first batch before answering, so that refusals and errors reject execute() itself.
  let first: CellValue[][] | null = null;
  try {
    const r = await fetchNext();
    if (stopped()) throw abortReason(signal);
    if (!r.done) { first = decode(r.value); fetchNext(); }
    else await finishing;
  } catch (err) {
    signal.removeEventListener('abort', onAbort);
    await teardown();
    throw fail(err);
  }

  async function* batches(): AsyncGenerator<CellValue[][]> {
    let complete = false;
    try {
      if (first) { const b = first; first = null; yield b; }
      for (;;) {
        if (stopped()) throw abortReason(signal);
        const r = await pending;
        if (r.done) { await finishing; break; }
        if (stopped()) throw abortReason(signal);
        const batch = decode(r.value);
        fetchNext();
        yield batch;
      }
      complete = true;
    } catch (err) {
      throw fail(err);
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (!complete) await teardown();
    }
  }

  return { columns, batches: batches() };
}
