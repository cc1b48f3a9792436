/**
 * A session: at most limits.poolSize connections (pool.ts: opened lazily, one socket per attempt,
 * never retried on their own; idle ones closed after 60 s) for one saved connection or one test
 * of unsaved settings.
 */
import { DomainError } from '../../core/errors.js';
import { acquireUnlessAborted } from '../../core/abort.js';
import type {
  ConnectionConfig, ConnectorLimits, ConnectorSession, SchemaSnapshot, SchemaTable,
} from '../../domain/plugins/connector.js';
import { extended } from './client.js';
import { createPgPool } from './pool.js';
import { connectError, isServerError, statementError } from './errors.js';
import { abortReason, cancellable, executeOn } from './execute.js';
import { createTypeCatalog } from './types.js';
import { postgresDenyList } from './forbidden.js';
import { refuseDeniedCalls } from '../shared/sql-calls.js';

const INTROSPECTION_TIMEOUT_MS = 60_000;

const INTROSPECTION_SQL = `
select n.nspname as schema, c.relname as name, c.relkind::text as kind, a.attname as column,
       pg_catalog.format_type(a.atttypid, a.atttypmod) as type, not a.attnotnull as nullable
  from pg_catalog.pg_class c
  join pg_catalog.pg_namespace n on n.oid = c.relnamespace
  join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
 where c.relkind in ('r', 'p', 'v', 'm', 'f')
   and not c.relispartition
   and n.nspname not in ('pg_catalog', 'information_schema')
   and n.nspname !~ '^pg_(toast|temp_|toast_temp_)'
   and pg_catalog.has_schema_privilege(n.oid, 'USAGE')
   and pg_catalog.has_any_column_privilege(c.oid, 'SELECT')
 order by n.nspname, c.relname, a.attnum`;

interface IntrospectionRow {
  schema: string;
  name: string;
  kind: string;
  column: string;
  type: string;
  nullable: boolean;
}

export function openPostgresSession(config: ConnectionConfig, limits: ConnectorLimits): ConnectorSession {
  const pool = createPgPool(config, limits);
  const where = `${config.host}:${config.port}`;
  const types = createTypeCatalog();
  let closed = false;

  /** Errors before the statement ran are the connection's; after, the statement's. */
  const connecting = (err: unknown, signal: AbortSignal): unknown => {
    if (signal.aborted) return abortReason(signal);
    if (err instanceof DomainError) return err;
    return connectError(err, where);
  };

  const reserve = async (signal: AbortSignal) => {
    if (closed) throw new DomainError('connection.unreachable', 'The connection was closed');
    if (signal.aborted) throw abortReason(signal);
    return acquireUnlessAborted(pool.reserve(), signal, (conn) => conn.release(), (err) => connecting(err, signal));
  };

  return {
    async test(signal) {
      const conn = await reserve(signal);
      try {
        const [row] = await cancellable(extended(conn, "select current_setting('server_version') as version"), signal);
        const started = performance.now();
        await cancellable(extended(conn, 'select 1'), signal);
        const roundTripMs = Math.round((performance.now() - started) * 10) / 10;
        return { serverVersion: `PostgreSQL ${String(row?.version ?? '')}`.trim(), roundTripMs };
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        throw isServerError(err) ? connectError(err, where) : connecting(err, signal);
      } finally {
        conn.release();
      }
    },

    async introspect(signal) {
      const conn = await reserve(signal);
      try {
        await cancellable(conn.unsafe(`begin transaction read only; set local statement_timeout = ${INTROSPECTION_TIMEOUT_MS}`), signal);
        const rows = await cancellable(extended(conn, INTROSPECTION_SQL), signal) as unknown as IntrospectionRow[];
        return snapshot(rows);
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        throw statementError(err);
      } finally {
        await conn.unsafe('rollback').catch(() => undefined);
        conn.release();
      }
    },

    async execute(statement, options) {
      if (statement.sql.trim().length === 0) throw new DomainError('query.failed', 'The statement is empty');
      refuseDeniedCalls(postgresDenyList, statement.sql);
      const conn = await reserve(options.signal);
      options.onConnected?.();
      return executeOn(conn, types, statement, options);
    },

    async close() {
      if (closed) return;
      closed = true;
      await pool.end(5);
    },
  };
}

function snapshot(rows: IntrospectionRow[]): SchemaSnapshot {
  const tables: SchemaTable[] = [];
  let current: SchemaTable | undefined;
  for (const row of rows) {
    if (!current || current.schema !== row.schema || current.name !== row.name) {
      current = { schema: row.schema, name: row.name, kind: row.kind === 'v' || row.kind === 'm' ? 'view' : 'table', columns: [] };
      tables.push(current);
    }
    current.columns.push({ name: row.column, type: row.type, nullable: row.nullable });
  }
  return { tables };
}
