/**
 * One read-only statement on a pooled MySQL/MariaDB connection:
 *   only statements that begin with a reading keyword (client.ts isReadingStatement);
 *   SET SESSION max_statement_time (MariaDB, seconds) / max_execution_time (MySQL, ms), time_zone;
 *   START TRANSACTION READ ONLY;
 *   prepare it (binary protocol: bound parameters, one statement only; a statement that returns
 *     no result set, e.g. SELECT … INTO OUTFILE, is refused before it runs);
 *   execute it, streaming rows in batches with backpressure (the socket is paused while two
 *     batches wait for the consumer);
 *   after the last row: refuse it if it took named locks (RELEASE_ALL_LOCKS() > 0); ROLLBACK, always.
 * Cancelling (the signal, or the consumer leaving the loop) sends KILL QUERY <thread id> from a
 * separate connection, drains the connection and rolls back; if that fails the connection is
 * destroyed instead of going back to the pool.
 */
import type mysql from 'mysql2';
import { abortReason } from '../../core/abort.js';
import { DomainError } from '../../core/errors.js';
import type { CellValue, ExecuteOptions, ResultColumn, RowStream, Statement } from '../../domain/plugins/connector.js';
import { isReadingStatement } from './client.js';
import { statementError } from './errors.js';
import { decoderFor, typeName, type Decoder, type MysqlField } from './values.js';

export type Flavor = 'mariadb' | 'mysql';
type Conn = mysql.PoolConnection;
interface Prepared { columns: unknown[]; parameters: unknown[]; execute(params: unknown[]): NodeJS.EventEmitter }

export interface ExecutionContext {
  conn: Conn;
  flavor: Flavor;
  timeZone: string;
  /** Sends KILL QUERY for a thread from a separate connection. */
  kill(threadId: number): Promise<void>;
}

const noop = (): void => undefined;

export { abortReason };

export function run(conn: mysql.Connection | Conn, sql: string, values: unknown[] = []): Promise<unknown[][]> {
  return new Promise((resolve, reject) => {
    conn.query({ sql, values, rowsAsArray: true }, (err, rows) => (err ? reject(err) : resolve(rows as unknown[][])));
  });
}

function prepare(conn: Conn, sql: string): Promise<Prepared> {
  return new Promise((resolve, reject) => {
    conn.prepare(sql, (err, statement) => (err ? reject(err) : resolve(statement as unknown as Prepared)));
  });
}

function notReadOnly(message: string): DomainError {
  return new DomainError('query.not_read_only', message);
}

export function refuseUnlessReading(sql: string): void {
  if (!isReadingStatement(sql)) {
    throw notReadOnly('Herald runs read-only statements only: on MySQL/MariaDB a statement must begin with SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN or DESCRIBE');
  }
}

export async function executeOn(ctx: ExecutionContext, statement: Statement, options: ExecuteOptions): Promise<RowStream> {
  const { conn } = ctx;
  const { signal } = options;
  const timeoutMs = Math.max(1, Math.floor(options.timeoutMs));
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  let prepared: Prepared | null = null;
  let locksReleased = false;
  let broken = false;
  let released = false;

  const releaseLocks = async (): Promise<number> => {
    locksReleased = true;
    try {
      const [row] = await run(conn, 'SELECT RELEASE_ALL_LOCKS()');
      return Number(row?.[0] ?? 0);
    } catch (err) {
      if ((err as { errno?: number }).errno === 1305) return 0; // no such function (MySQL < 5.7)
      throw err;
    }
  };

  /** ROLLBACK and back to the pool; a connection in doubt is destroyed instead. */
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    if (!broken) {
      try {
        if (!locksReleased) await releaseLocks();
        await run(conn, 'ROLLBACK');
      } catch { broken = true; }
    }
    if (prepared && !broken) { try { conn.unprepare(statement.sql); } catch { broken = true; } }
    if (broken) conn.destroy(); else conn.release();
  };

  let command: NodeJS.EventEmitter;
  try {
    const limit = ctx.flavor === 'mariadb'
      ? `max_statement_time = ${(timeoutMs / 1000).toFixed(3)}`
      : `max_execution_time = ${timeoutMs}`;
    await run(conn, `SET SESSION ${limit}, time_zone = ?`, [ctx.timeZone]);
    await run(conn, 'START TRANSACTION READ ONLY');
    if (signal.aborted) throw abortReason(signal);
    prepared = await prepare(conn, statement.sql);
    if (prepared.columns.length === 0) {
      throw notReadOnly('Herald runs read-only statements that return rows; this statement returns none');
    }
    if (prepared.parameters.length !== statement.params.length) {
      throw new DomainError('query.failed', `The statement has ${prepared.parameters.length} placeholders but ${statement.params.length} values were given`);
    }
    if (signal.aborted) throw abortReason(signal);
    command = prepared.execute(statement.params.map((p) => (typeof p === 'boolean' ? Number(p) : p)));
  } catch (err) {
    await release();
    throw signal.aborted ? abortReason(signal) : statementError(err);
  }

  // Rows arrive as events; batches wait in `ready` (the socket pauses at two).
  let columns: ResultColumn[] = [];
  let decoders: Decoder[] = [];
  const ready: CellValue[][][] = [];
  let current: CellValue[][] = [];
  let paused = false;
  let discarding = false;
  let failure: unknown = null;
  let ended = false;
  let finishing: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  const notify = (): void => { const w = wake; wake = null; w?.(); };
  const resume = (): void => { if (paused) { paused = false; conn.resume(); } };

  const finish = async (): Promise<void> => {
    try {
      if (await releaseLocks() > 0) throw notReadOnly('Herald runs read-only statements only: this statement took named locks (GET_LOCK; they were released)');
    } finally {
      await release();
    }
  };

  let commandDone!: () => void;
  const done = new Promise<void>((resolve) => { commandDone = resolve; });
  command.on('fields', (fields: MysqlField[]) => {
    columns = fields.map((f) => ({ name: f.name, type: typeName(f) }));
    decoders = fields.map((f) => decoderFor(f, ctx.timeZone));
  });
  command.on('result', (row: unknown[]) => {
    if (discarding) return;
    const out = new Array<CellValue>(row.length);
    for (let i = 0; i < row.length; i += 1) out[i] = row[i] === null ? null : decoders[i]!(row[i]);
    current.push(out);
    if (current.length >= batchSize) {
      ready.push(current);
      current = [];
      if (ready.length >= 2 && !paused) { paused = true; conn.pause(); }
      notify();
    }
  });
  command.on('error', (err: unknown) => { failure ??= err; });
  command.on('end', () => {
    ended = true;
    if (current.length > 0 && !discarding) ready.push(current);
    current = [];
    if (!failure && !discarding) { finishing = finish(); finishing.catch(noop); }
    commandDone();
    notify();
  });

  let tearingDown: Promise<void> | null = null;
  /** Stops early: KILL QUERY, drain, roll back. Idempotent. */
  const teardown = (): Promise<void> => {
    tearingDown ??= (async () => {
      discarding = true;
      ready.length = 0;
      // A KILL QUERY that lands between two commands is dropped by the server: repeat until the
      // statement is over; if that cannot be done, the connection is destroyed, not pooled.
      for (let attempt = 0; attempt < 5 && !ended && !broken; attempt += 1) {
        resume();
        try { await ctx.kill(conn.threadId); } catch { broken = true; break; }
        resume();
        await Promise.race([done, new Promise((r) => setTimeout(r, 1000 * (attempt + 1)))]);
      }
      if (!ended) broken = true;
      if (broken) { released = true; conn.destroy(); return; }
      if (finishing) { await finishing.catch(noop); return; }
      await release();
    })();
    return tearingDown;
  };
  const onAbort = (): void => { void teardown(); };
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) void teardown(); // aborted while the statement was being prepared
  const fail = (err: unknown): unknown => (signal.aborted ? abortReason(signal) : statementError(err));

  /** The next batch, or null after the last (and a finished, checked, rolled-back transaction). */
  const next = async (): Promise<CellValue[][] | null> => {
    for (;;) {
      if (signal.aborted || tearingDown) throw abortReason(signal);
      const batch = ready.shift();
      if (batch) {
        if (ready.length < 2) resume();
        return batch;
      }
      if (failure) throw failure;
      if (ended) { await finishing; return null; }
      resume();
      await new Promise<void>((resolve) => { wake = resolve; });
    }
  };

  const waitFirst = async (): Promise<void> => {
    while (ready.length === 0 && !ended && !failure && !signal.aborted) {
      await new Promise<void>((resolve) => { wake = resolve; });
    }
  };
  signal.addEventListener('abort', notify, { once: true });

  try {
    await waitFirst();
    if (signal.aborted) throw abortReason(signal);
    if (failure) throw failure;
    if (ended && ready.length === 0) await finishing;
  } catch (err) {
    signal.removeEventListener('abort', onAbort);
    await teardown();
    throw fail(err);
  }

  async function* batches(): AsyncGenerator<CellValue[][]> {
    let complete = false;
    try {
      for (;;) {
        const batch = await next();
        if (batch === null) break;
        yield batch;
      }
      complete = true;
    } catch (err) {
      throw fail(err);
    } finally {
      signal.removeEventListener('abort', onAbort);
      signal.removeEventListener('abort', notify);
      if (!complete) await teardown();
    }
  }

  return { columns, batches: batches() };
}
