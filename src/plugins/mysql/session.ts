/**
 * The MySQL / MariaDB connections of a session: one mysql2 pool (at most limits.poolSize
 * connections, opened lazily, idle ones closed after 60 s), each connection with what the shared
 * skeleton asks of one: the server version, a ping, the catalogue and a run. Our own statements
 * are cancelled by KILL QUERY from a separate connection.
 */
import type mysql from 'mysql2';
import type { ConnectionConfig, ConnectorLimits } from '../../domain/plugins/connector.js';
import type { CatalogueRow, SqlConnection, SqlPool } from '../shared/sql-connector.js';
import { cancellable } from '../shared/sql-stream.js';
import { createPool, createSingleConnection, sessionTimeZone } from './client.js';
import { codeOf } from './errors.js';
import { mysqlRun, run, timeLimit, type Flavor } from './execute.js';

const CATALOGUE_SQL = `
SELECT c.TABLE_SCHEMA, c.TABLE_NAME, t.TABLE_TYPE, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE
  FROM information_schema.COLUMNS c
  JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
 WHERE c.TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
   AND t.TABLE_TYPE IN ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')
 ORDER BY c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION`;

export function openMysqlPool(config: ConnectionConfig, limits: ConnectorLimits): SqlPool {
  const timeZone = sessionTimeZone(config);
  // ssl_mode prefer: TLS first; a server without TLS switches the session to plain text once.
  let withTls = config.sslMode !== 'disable';
  let pool = createPool(config, limits, withTls);
  let flavor: Promise<Flavor> | null = null;

  const take = (): Promise<mysql.PoolConnection> => new Promise((resolve, reject) => {
    pool.getConnection((err, conn) => (err ? reject(err) : resolve(conn)));
  });

  const acquire = async (): Promise<mysql.PoolConnection> => {
    try {
      return await take();
    } catch (err) {
      if (config.sslMode === 'prefer' && withTls && codeOf(err) === 'HANDSHAKE_NO_SSL_SUPPORT') {
        withTls = false;
        const old = pool;
        pool = createPool(config, limits, false);
        old.end(() => undefined);
        return take();
      }
      throw err;
    }
  };

  const versionOf = async (conn: mysql.PoolConnection): Promise<string> => String((await run(conn, 'SELECT VERSION()'))[0]?.[0] ?? '');
  const flavorOf = (conn: mysql.PoolConnection): Promise<Flavor> => {
    flavor ??= versionOf(conn).then((v) => (/mariadb/i.test(v) ? 'mariadb' : 'mysql'));
    flavor.catch(() => { flavor = null; });
    return flavor;
  };

  const kill = (threadId: number): Promise<void> => new Promise((resolve, reject) => {
    const killer = createSingleConnection(config, limits, withTls);
    killer.on('error', () => undefined);
    killer.query(`KILL QUERY ${Math.trunc(threadId)}`, (err) => {
      killer.end(() => undefined);
      if (err) reject(err); else resolve();
    });
  });

  const connection = (conn: mysql.PoolConnection): SqlConnection => {
    let spoiled = false;
    const release = (): void => { if (spoiled) conn.destroy(); else conn.release(); };
    /** Runs our own statements, honouring the signal by killing them. */
    const guarded = <T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> =>
      cancellable(signal, work, () => { void kill(conn.threadId).catch(() => conn.destroy()); });
    return {
      async serverVersion(signal) {
        const version = await guarded(signal, () => versionOf(conn));
        return /mariadb/i.test(version) ? `MariaDB ${version.replace(/-MariaDB.*$/i, '')}` : `MySQL ${version}`;
      },
      async ping(signal) {
        await guarded(signal, () => run(conn, 'SELECT 1'));
      },
      async catalogue(signal, timeoutMs) {
        try {
          const rows = await guarded(signal, async () => {
            await run(conn, `SET SESSION ${timeLimit(await flavorOf(conn), timeoutMs)}`);
            await run(conn, 'START TRANSACTION READ ONLY');
            return run(conn, CATALOGUE_SQL);
          });
          return (rows as string[][]).map(([schema, table, tableType, column, type, nullable]): CatalogueRow => ({
            schema: schema!, table: table!, kind: tableType === 'VIEW' ? 'view' : 'table', column: column!, type: type!, nullable: nullable === 'YES',
          }));
        } finally {
          try { await run(conn, 'ROLLBACK'); } catch { spoiled = true; }
        }
      },
      run: (statement, options) => mysqlRun({
        conn, flavor: () => flavorOf(conn), timeZone, kill, spoil: () => { spoiled = true; }, release,
      }, statement, options),
      release,
    };
  };

  return {
    acquire: async () => connection(await acquire()),
    end: () => new Promise<void>((resolve) => { pool.end(() => resolve()); }),
  };
}
