/**
 * The PostgreSQL connections of a session: at most limits.poolSize (pool.ts: opened lazily, one
 * socket per attempt, never retried on their own; idle ones closed after 60 s), each with what the
 * shared skeleton asks of a connection: the server version, a ping, the catalogue and a run.
 */
import type { ConnectionConfig, ConnectorLimits } from '../../domain/plugins/connector.js';
import { DomainError } from '../../core/errors.js';
import type { CatalogueRow, SqlConnection, SqlPool } from '../shared/sql-connector.js';
import { extended, transactionSettings } from './client.js';
import { createPgPool, type Reserved } from './pool.js';
import { pgCancellable, postgresNdjsonRun, postgresRun } from './execute.js';
import { createTypeCatalog, type TypeCatalog } from './types.js';

const CATALOGUE_SQL = `
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

interface CatalogueRecord {
  schema: string;
  name: string;
  kind: string;
  column: string;
  type: string;
  nullable: boolean;
}

function connection(conn: Reserved, types: TypeCatalog, settings: string, where: string): SqlConnection {
  return {
    /**
     * Read in the read-only transaction every run is made of (BEGIN with its settings, then a
     * statement of its own, then ROLLBACK), so a server that cannot carry one (PgBouncer in
     * statement pooling, say) fails the connection test, not the first run.
     */
    async serverVersion(signal) {
      try {
        try {
          await pgCancellable(conn.unsafe(`begin transaction read only; ${settings}`), signal);
        } catch (err) {
          // Logged in, then cut off at BEGIN: PgBouncer's refusal ("transaction blocks not
          // allowed in statement pooling mode") comes with the close, and postgres.js keeps only the close.
          if ((err as { code?: unknown }).code === 'CONNECTION_CLOSED' && !signal.aborted) {
            throw new DomainError('connection.unreachable', `The server at ${where} closed the connection when Herald opened the read-only transaction every run is made of: `
              + 'PgBouncer in statement pooling does that; give this database pool_mode = transaction (or session) in pgbouncer.ini');
          }
          throw err;
        }
        const [row] = await pgCancellable(extended(conn, "select current_setting('server_version') as version"), signal);
        return `PostgreSQL ${String(row?.version ?? '')}`.trim();
      } finally {
        await conn.unsafe('rollback').catch(() => undefined);
      }
    },
    async ping(signal) {
      await pgCancellable(extended(conn, 'select 1'), signal);
    },
    async catalogue(signal, timeoutMs) {
      try {
        await pgCancellable(conn.unsafe(`begin transaction read only; set local statement_timeout = ${timeoutMs}; ${settings}`), signal);
        const rows = await pgCancellable(extended(conn, CATALOGUE_SQL), signal) as unknown as CatalogueRecord[];
        return rows.map((row): CatalogueRow => ({
          schema: row.schema, table: row.name, kind: row.kind === 'v' || row.kind === 'm' ? 'view' : 'table',
          column: row.column, type: row.type, nullable: row.nullable,
        }));
      } finally {
        await conn.unsafe('rollback').catch(() => undefined);
      }
    },
    run: (statement, options) => postgresRun(conn, types, statement, options, settings),
    runNdjson: (statement, options) => postgresNdjsonRun(conn, types, statement, options, settings),
    release: () => conn.release(),
  };
}

export function openPostgresPool(config: ConnectionConfig, limits: ConnectorLimits): SqlPool {
  const pool = createPgPool(config, limits);
  const types = createTypeCatalog();
  const settings = transactionSettings(config);
  const where = `${config.host}:${config.port}`;
  return {
    acquire: async () => connection(await pool.reserve(), types, settings, where),
    end: () => pool.end(5),
  };
}
