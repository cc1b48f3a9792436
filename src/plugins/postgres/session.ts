/**
 * The PostgreSQL connections of a session: at most limits.poolSize (pool.ts: opened lazily, one
 * socket per attempt, never retried on their own; idle ones closed after 60 s), each with what the
 * shared skeleton asks of a connection: the server version, a ping, the catalogue and a run.
 */
import type { ConnectionConfig, ConnectorLimits } from '../../domain/plugins/connector.js';
import type { CatalogueRow, SqlConnection, SqlPool } from '../shared/sql-connector.js';
import { extended } from './client.js';
import { createPgPool, type Reserved } from './pool.js';
import { pgCancellable, postgresRun } from './execute.js';
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

function connection(conn: Reserved, types: TypeCatalog): SqlConnection {
  return {
    async serverVersion(signal) {
      const [row] = await pgCancellable(extended(conn, "select current_setting('server_version') as version"), signal);
      return `PostgreSQL ${String(row?.version ?? '')}`.trim();
    },
    async ping(signal) {
      await pgCancellable(extended(conn, 'select 1'), signal);
    },
    async catalogue(signal, timeoutMs) {
      try {
        await pgCancellable(conn.unsafe(`begin transaction read only; set local statement_timeout = ${timeoutMs}`), signal);
        const rows = await pgCancellable(extended(conn, CATALOGUE_SQL), signal) as unknown as CatalogueRecord[];
        return rows.map((row): CatalogueRow => ({
          schema: row.schema, table: row.name, kind: row.kind === 'v' || row.kind === 'm' ? 'view' : 'table',
          column: row.column, type: row.type, nullable: row.nullable,
        }));
      } finally {
        await conn.unsafe('rollback').catch(() => undefined);
      }
    },
    run: (statement, options) => postgresRun(conn, types, statement, options),
    release: () => conn.release(),
  };
}

export function openPostgresPool(config: ConnectionConfig, limits: ConnectorLimits): SqlPool {
  const pool = createPgPool(config, limits);
  const types = createTypeCatalog();
  return {
    acquire: async () => connection(await pool.reserve(), types),
    end: () => pool.end(5),
  };
}
