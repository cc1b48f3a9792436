/**
 * The skeleton of a SQL connector: everything src/domain/plugins/connector.ts asks of a database
 * plugin that does not depend on the database. A connector is a SqlDialect given to sqlConnector();
 * the dialect supplies only what its database and driver do their own way:
 *
 *   - its manifest (built by sqlManifest, sql-manifest.ts), placeholder syntax, name limits and
 *     option rules;
 *   - the text refusals of its dialect (a deny list of functions, read by its lexer; any other
 *     rule on the text, e.g. MySQL's first keyword);
 *   - its driver: a pool (acquire, end) whose connections tell the server version, answer a
 *     ping, read the catalogue, and run one user statement (a SqlRun: read-only setup, describe,
 *     stream, cancel, the checks after the last row, rollback);
 *   - how to read its driver's errors (SqlErrorDialect).
 *
 * The skeleton does the rest, the same for every connector: settings validation (the shared
 * connection rules, then the options), the session's life (a closed session refuses, an abort
 * while waiting for a connection gives the connection back), the connection test and its round
 * trip, schema browsing (catalogue rows into tables and views), execute (an empty statement, the
 * text refusals and the forbidden functions refused before a connection is taken; the time limit
 * and batch size made whole numbers; the timing hook; the stream of sql-stream.ts), and the
 * mapping of errors to the catalogue's codes (sql-errors.ts).
 */
import { abortReason, acquireUnlessAborted } from '../../core/abort.js';
import { DomainError, validationFailed, type FieldProblem } from '../../core/errors.js';
import { checkConnectionSettings, type SettingsLimits } from '../../domain/plugins/connection-rules.js';
import type {
  ConnectionConfig, Connector, ConnectorLimits, ConnectorSession, ExecuteOptions, NdjsonBatch, SchemaSnapshot, SchemaTable, Statement,
} from '../../domain/plugins/connector.js';
import type { PluginManifest } from '../../domain/plugins/plugin.js';
import { refuseDeniedCalls, type DenyList } from './sql-calls.js';
import { sqlErrors, type SqlErrorDialect } from './sql-errors.js';
import { streamRows, type SqlRun } from './sql-stream.js';

/** How long reading the catalogue may take on the server. */
export const INTROSPECTION_TIMEOUT_MS = 60_000;

/** One column of one table or view, as the dialect's catalogue query reads it, in order. */
export interface CatalogueRow {
  schema: string;
  table: string;
  kind: 'table' | 'view';
  column: string;
  type: string;
  nullable: boolean;
}

/** The time limit (ms, ≥ 1) and batch size (rows, ≥ 1) of one statement, as whole numbers. */
export interface SqlRunOptions {
  signal: AbortSignal;
  timeoutMs: number;
  batchSize: number;
}

/** A connection taken from the dialect's pool for one use. */
export interface SqlConnection {
  /** The server's name and version, e.g. "PostgreSQL 16.4", "MariaDB 11.4.2". */
  serverVersion(signal: AbortSignal): Promise<string>;
  /** The smallest round trip (SELECT 1). */
  ping(signal: AbortSignal): Promise<void>;
  /**
   * The tables, views and columns the user may read, ordered by schema, table and column
   * position, read in a read-only transaction with the given time limit that it rolls back.
   */
  catalogue(signal: AbortSignal, timeoutMs: number): Promise<CatalogueRow[]>;
  /** One user statement on this connection; the run gives the connection back when it closes. */
  run(statement: Statement, options: SqlRunOptions): SqlRun;
  /**
   * The same with its rows as NDJSON lines from the database's own bytes, when the dialect can
   * for this statement (undefined: it cannot, and run() is used).
   */
  runNdjson?(statement: Statement, options: SqlRunOptions): SqlRun<NdjsonBatch> | undefined;
  /** Gives the connection back to the pool (or destroys it when it is in doubt). */
  release(): void;
}

export interface SqlPool {
  /** A connection of its own; rejects with the driver's error when none can be opened. */
  acquire(): Promise<SqlConnection>;
  /** Closes every connection (a statement still running is cut off). */
  end(): Promise<void>;
}

/** A check of one option's value (a string), as a field problem without its field; undefined when fine. */
export type OptionRule = (value: string, field: string) => Omit<FieldProblem, 'field'> | undefined;

export interface SqlDialect {
  manifest: PluginManifest & { kind: 'connector' };
  /** The placeholder of the n-th bound parameter (1-based). */
  placeholder(n: number): string;
  sqlDialect: Connector['sqlDialect'];
  quoteIdentifier(name: string): string;
  /** Longest database and user name the server accepts. */
  nameLimits: SettingsLimits;
  /** The connector's options (those of its manifest), each a string checked by its rule. */
  options: Readonly<Record<string, OptionRule>>;
  /** The functions the connector refuses to run (query.forbidden_function), read by the dialect's lexer. */
  deniedFunctions: DenyList;
  /** Refuses, before the deny list, a statement whose text alone shows it is not read-only. */
  refuseText?(sql: string): void;
  errors: SqlErrorDialect;
  /** The pool of one session; nothing is opened before the first acquire. */
  openPool(config: ConnectionConfig, limits: ConnectorLimits): SqlPool;
}

function optionProblems(dialect: SqlDialect, options: Record<string, unknown>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(options ?? {})) {
    const field = `options.${key}`;
    const rule = Object.hasOwn(dialect.options, key) ? dialect.options[key] : undefined;
    if (!rule) {
      problems.push({ field, code: 'validation.unknown_field', message: `${key} is not an option of the ${dialect.manifest.id} connector` });
    } else if (value === undefined || value === null) {
      continue;
    } else if (typeof value !== 'string') {
      problems.push({ field, code: 'validation.type', message: `${field} must be a string` });
    } else {
      const problem = rule(value, field);
      if (problem) problems.push({ field, ...problem });
    }
  }
  return problems;
}

/** Catalogue rows (ordered by table) as tables and views with their columns. */
export function snapshotOf(rows: readonly CatalogueRow[]): SchemaSnapshot {
  const tables: SchemaTable[] = [];
  let current: SchemaTable | undefined;
  for (const row of rows) {
    if (!current || current.schema !== row.schema || current.name !== row.table) {
      current = { schema: row.schema, name: row.table, kind: row.kind, columns: [] };
      tables.push(current);
    }
    current.columns.push({ name: row.column, type: row.type, nullable: row.nullable });
  }
  return { tables };
}

function openSession(dialect: SqlDialect, config: ConnectionConfig, limits: ConnectorLimits): ConnectorSession {
  const pool = dialect.openPool(config, limits);
  const { connectError, statementError } = sqlErrors(dialect.errors);
  const where = `${config.host}:${config.port}`;
  let closed = false;

  const acquire = async (signal: AbortSignal): Promise<SqlConnection> => {
    if (closed) throw new DomainError('connection.unreachable', 'The connection was closed');
    if (signal.aborted) throw abortReason(signal);
    return acquireUnlessAborted(pool.acquire(), signal, (conn) => conn.release(),
      (err) => (signal.aborted ? abortReason(signal) : connectError(err, where)));
  };

  /**
   * What execute does before the statement runs: the empty statement and the text refusals
   * before a connection is taken; the connection; the timing hook; the run's whole-number limits.
   */
  const begin = async (statement: Statement, options: ExecuteOptions): Promise<{ conn: SqlConnection; runOptions: SqlRunOptions }> => {
    if (statement.sql.trim().length === 0) throw new DomainError('query.failed', 'The statement is empty');
    dialect.refuseText?.(statement.sql);
    refuseDeniedCalls(dialect.deniedFunctions, statement.sql);
    const { signal } = options;
    const conn = await acquire(signal);
    options.onConnected?.();
    return {
      conn,
      runOptions: { signal, timeoutMs: Math.max(1, Math.floor(options.timeoutMs)), batchSize: Math.max(1, Math.floor(options.batchSize)) },
    };
  };

  return {
    async test(signal) {
      const conn = await acquire(signal);
      try {
        const serverVersion = await conn.serverVersion(signal);
        const started = performance.now();
        await conn.ping(signal);
        const roundTripMs = Math.round((performance.now() - started) * 10) / 10;
        return { serverVersion, roundTripMs };
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        throw connectError(err, where);
      } finally {
        conn.release();
      }
    },

    async introspect(signal) {
      const conn = await acquire(signal);
      try {
        return snapshotOf(await conn.catalogue(signal, INTROSPECTION_TIMEOUT_MS));
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        throw statementError(err);
      } finally {
        conn.release();
      }
    },

    async execute(statement, options) {
      const { conn, runOptions } = await begin(statement, options);
      return streamRows(conn.run(statement, runOptions), options.signal, statementError);
    },

    async executeNdjson(statement, options) {
      const { conn, runOptions } = await begin(statement, options);
      const lines = conn.runNdjson?.(statement, runOptions);
      if (!lines) return streamRows(conn.run(statement, runOptions), options.signal, statementError);
      const { columns, batches } = await streamRows(lines, options.signal, statementError);
      return { columns, ndjson: batches };
    },

    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/** The connector of a dialect: validate and open as every SQL connector does them. */
export function sqlConnector(dialect: SqlDialect): Connector {
  const connector: Connector = {
    manifest: dialect.manifest,
    placeholder: (n) => dialect.placeholder(n),
    sqlDialect: dialect.sqlDialect,
    quoteIdentifier: (name) => dialect.quoteIdentifier(name),
    validate(config) {
      const problems = [...checkConnectionSettings(config, dialect.nameLimits), ...optionProblems(dialect, config.options)];
      if (problems.length > 0) throw validationFailed(problems);
    },
    open(config, limits) {
      connector.validate(config);
      return openSession(dialect, config, limits);
    },
  };
  return connector;
}
