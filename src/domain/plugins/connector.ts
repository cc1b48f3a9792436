/**
 * The connector interface: what a database plugin (src/plugins/postgres, src/plugins/mysql, …)
 * implements. Everything it runs is read-only and one statement; rows stream in batches.
 * Errors are DomainErrors with the catalogue's codes: connection.auth_failed,
 * connection.unreachable, query.failed, query.timeout, query.not_read_only, and
 * query.forbidden_function for a statement that calls a function the plugin refuses to run
 * (server administration and the like; each plugin keeps its dialect's list).
 */
import type { Plugin } from './plugin.js';

export type SslMode = 'disable' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

/** A connection's settings as the plugin receives them: secrets already opened, nothing unchecked. */
export interface ConnectionConfig {
  host: string;
  port: number;
  database: string;
  username: string;
  password: string | null;
  sslMode: SslMode;
  /** PEM content of the CA certificate(s); never a path on the server. */
  sslCa: string | null;
  /** What the plugin adds, already checked against its manifest's settingsSchema.properties.options. */
  options: Record<string, unknown>;
}

export interface ConnectorLimits {
  /** Most pooled connections one saved connection may hold. */
  poolSize: number;
  /** Longest a connection attempt may take before connection.unreachable. */
  connectTimeoutMs: number;
}

export interface ResultColumn {
  name: string;
  /** The database's own type name (e.g. "numeric", "timestamptz", "varchar"). */
  type: string;
}

/**
 * A row value on the wire (openapi.yaml's ResultValue): null, boolean, a number when exactly
 * representable (integers within ±2^53, finite floats), otherwise a string: decimals, big
 * integers, dates, times, timestamps (ISO 8601), intervals, JSON (its text), UUIDs, NaN and
 * ±Infinity ("NaN", "Infinity", "-Infinity"); binary as base64.
 */
export type CellValue = string | number | boolean | null;

export interface Statement {
  /** SQL in the plugin's own placeholder syntax (see Connector.placeholder). */
  sql: string;
  params: Array<string | number | boolean | null>;
}

export interface ExecuteOptions {
  signal: AbortSignal;
  /** The statement's time limit on the database (statement_timeout / max_execution_time). */
  timeoutMs: number;
  /** Rows per batch (server-side cursor fetch size). */
  batchSize: number;
  /**
   * Called once the statement has its connection (after any wait for a free one in the pool),
   * just before it is sent: the caller's timing of the statement starts here.
   */
  onConnected?: () => void;
}

export interface RowStream {
  columns: ResultColumn[];
  /** Batches of rows in column order; ends when the result does. Breaking out of it cancels. */
  batches: AsyncIterable<CellValue[][]>;
}

/**
 * Rows already written as a result file's NDJSON lines: each row's `JSON.stringify` (of the
 * CellValues the connector's `execute` would give) and a newline, byte for byte.
 */
export interface NdjsonBatch {
  /** How many rows (lines) `lines` holds. */
  rows: number;
  lines: Buffer;
}

/** The rows of a statement as NDJSON lines (ConnectorSession.executeNdjson). Breaking out of it cancels. */
export interface NdjsonStream {
  columns: ResultColumn[];
  ndjson: AsyncIterable<NdjsonBatch>;
}

export interface SchemaColumn {
  name: string;
  type: string;
  nullable: boolean;
}

export interface SchemaTable {
  schema: string;
  name: string;
  kind: 'table' | 'view';
  columns: SchemaColumn[];
}

export interface SchemaSnapshot {
  tables: SchemaTable[];
}

/** A pool for one saved connection (or one unsaved test). */
export interface ConnectorSession {
  test(signal: AbortSignal): Promise<{ serverVersion: string; roundTripMs: number }>;
  introspect(signal: AbortSignal): Promise<SchemaSnapshot>;
  /** Runs one read-only statement in a read-only transaction that is always rolled back. */
  execute(statement: Statement, options: ExecuteOptions): Promise<RowStream>;
  /**
   * The same, for a caller that writes the rows as NDJSON (a run's result file): a connector
   * that can write the lines from the database's own bytes answers an NdjsonStream (no value per
   * cell), otherwise the rows as execute gives them. Optional: without it, callers use execute.
   */
  executeNdjson?(statement: Statement, options: ExecuteOptions): Promise<RowStream | NdjsonStream>;
  close(): Promise<void>;
}

export interface Connector extends Plugin<'connector'> {
  /** The placeholder of the n-th bound parameter (1-based): "$1" for Postgres, "?" for MySQL. */
  placeholder(n: number): string;
  /** The SQL the database speaks, for parsers that check statements before they are sent (the assistant's). */
  sqlDialect: 'postgresql' | 'mysql';
  /** A name (schema, table, column) quoted for this database's SQL. */
  quoteIdentifier(name: string): string;
  /** Throws validation.failed (per field) for settings the plugin refuses, e.g. TLS material given as a path. */
  validate(config: ConnectionConfig): void;
  open(config: ConnectionConfig, limits: ConnectorLimits): ConnectorSession;
}
