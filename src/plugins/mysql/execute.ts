/**
 * One read-only statement on a pooled MySQL/MariaDB connection (the dialect part of a SqlRun; the
 * stream around it is src/plugins/shared/sql-stream.ts):
 *   only statements that begin with a reading keyword (refuseUnlessReading, before a connection
 *     is taken);
 *   SET SESSION max_statement_time (MariaDB, seconds) / max_execution_time (MySQL, ms), time_zone;
 *   START TRANSACTION READ ONLY;
 *   prepare it (binary protocol: bound parameters, one statement only; a statement that returns
 *     no result set, e.g. SELECT … INTO OUTFILE, is refused before it runs);
 *   execute it, rows arriving as events into batches; the socket is paused while a batch waits
 *     beyond the one the stream holds ahead of the consumer;
 *   after the last row: refuse it if it took named locks (RELEASE_ALL_LOCKS() > 0); ROLLBACK, always.
 * Cancelling sends KILL QUERY <thread id> from a separate connection and drains the connection;
 * if that fails the connection is destroyed instead of going back to the pool.
 */
import type mysql from 'mysql2';
import { abortReason } from '../../core/abort.js';
import { DomainError } from '../../core/errors.js';
import type { CellValue, ResultColumn, Statement } from '../../domain/plugins/connector.js';
import type { SqlRunOptions } from '../shared/sql-connector.js';
import { notReadOnly } from '../shared/sql-errors.js';
import { decodeRow, type SqlRun } from '../shared/sql-stream.js';
import { isReadingStatement } from './client.js';
import { errnoOf, ER_SP_DOES_NOT_EXIST } from './errors.js';
import { decoderFor, typeName, type Decoder, type MysqlField } from './values.js';

export type Flavor = 'mariadb' | 'mysql';
type Conn = mysql.PoolConnection;
interface Prepared { columns: unknown[]; parameters: unknown[]; execute(params: unknown[]): NodeJS.EventEmitter }

/** Batches that may wait, decoded, beyond the one the stream holds ahead: the socket pauses at this many. */
const QUEUED_BATCHES = 1;

export interface ExecutionContext {
  conn: Conn;
  /** MariaDB or MySQL (they name the statement time limit differently). */
  flavor(): Promise<Flavor>;
  timeZone: string;
  /** Sends KILL QUERY for a thread from a separate connection. */
  kill(threadId: number): Promise<void>;
  /** Marks the connection for destruction instead of the pool when it is given back. */
  spoil(): void;
  /** Gives the connection back (or destroys it, once spoiled). */
  release(): void;
}

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

/** The session setting that bounds each statement: MariaDB in seconds, MySQL in milliseconds. */
export function timeLimit(flavor: Flavor, timeoutMs: number): string {
  return flavor === 'mariadb' ? `max_statement_time = ${(timeoutMs / 1000).toFixed(3)}` : `max_execution_time = ${timeoutMs}`;
}

export function refuseUnlessReading(sql: string): void {
  if (!isReadingStatement(sql)) {
    throw notReadOnly('Herald runs read-only statements only: on MySQL/MariaDB a statement must begin with SELECT, WITH, VALUES, TABLE, SHOW, EXPLAIN or DESCRIBE');
  }
}

export function mysqlRun(ctx: ExecutionContext, statement: Statement, options: SqlRunOptions): SqlRun {
  const { conn } = ctx;
  const { signal, timeoutMs, batchSize } = options;
  let prepared: Prepared | null = null;
  let locksReleased = false;
  let broken = false;

  const releaseLocks = async (): Promise<number> => {
    locksReleased = true;
    try {
      const [row] = await run(conn, 'SELECT RELEASE_ALL_LOCKS()');
      return Number(row?.[0] ?? 0);
    } catch (err) {
      if (errnoOf(err) === ER_SP_DOES_NOT_EXIST) return 0;
      throw err;
    }
  };

  // Rows arrive as events; batches wait in `ready` (the socket pauses at QUEUED_BATCHES).
  let columns: ResultColumn[] = [];
  let decoders: Decoder[] = [];
  const ready: CellValue[][][] = [];
  let current: CellValue[][] = [];
  let paused = false;
  let discarding = false;
  let failure: unknown = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const notify = (): void => { const w = wake; wake = null; w?.(); };
  const resume = (): void => { if (paused) { paused = false; conn.resume(); } };
  let commandDone!: () => void;
  const done = new Promise<void>((resolve) => { commandDone = resolve; });

  const listen = (command: NodeJS.EventEmitter): void => {
    command.on('fields', (fields: MysqlField[]) => {
      columns = fields.map((f) => ({ name: f.name, type: typeName(f) }));
      decoders = fields.map((f) => decoderFor(f, ctx.timeZone));
    });
    command.on('result', (row: unknown[]) => {
      if (discarding) return;
      current.push(decodeRow(row, decoders));
      if (current.length >= batchSize) {
        ready.push(current);
        current = [];
        if (ready.length >= QUEUED_BATCHES && !paused) { paused = true; conn.pause(); }
        notify();
      }
    });
    command.on('error', (err: unknown) => { failure ??= err; });
    command.on('end', () => {
      ended = true;
      if (current.length > 0 && !discarding) ready.push(current);
      current = [];
      commandDone();
      notify();
    });
  };

  return {
    get columns() { return columns; },

    async open() {
      let flavor: Flavor;
      try {
        flavor = await ctx.flavor();
      } catch (err) {
        broken = true;
        throw err;
      }
      await run(conn, `SET SESSION ${timeLimit(flavor, timeoutMs)}, time_zone = ?`, [ctx.timeZone]);
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
      listen(prepared.execute(statement.params.map((p) => (typeof p === 'boolean' ? Number(p) : p))));
    },

    async fetch() {
      for (;;) {
        const batch = ready.shift();
        if (batch) {
          if (ready.length < QUEUED_BATCHES) resume();
          return batch;
        }
        if (failure) throw failure;
        if (ended) return null;
        resume();
        await new Promise<void>((resolve) => { wake = resolve; });
      }
    },

    /** KILL QUERY, drain. */
    async cancel() {
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
    },

    async check() {
      if (await releaseLocks() > 0) throw notReadOnly('Herald runs read-only statements only: this statement took named locks (GET_LOCK; they were released)');
    },

    /** ROLLBACK and back to the pool; a connection in doubt is destroyed instead. */
    async close() {
      if (!broken) {
        try {
          if (!locksReleased) await releaseLocks();
          await run(conn, 'ROLLBACK');
        } catch { broken = true; }
      }
      if (prepared && !broken) { try { conn.unprepare(statement.sql); } catch { broken = true; } }
      if (broken) ctx.spoil();
      ctx.release();
    },
  };
}
