/**
 * A session: one mysql2 pool (at most limits.poolSize connections, opened lazily, idle ones closed
 * after 60 s) for one saved connection or one test of unsaved settings.
 */
import type mysql from 'mysql2';
import { acquireUnlessAborted } from '../../core/abort.js';
import { DomainError } from '../../core/errors.js';
import type {
  ConnectionConfig, ConnectorLimits, ConnectorSession, SchemaSnapshot, SchemaTable,
} from '../../domain/plugins/connector.js';
import { createPool, createSingleConnection, sessionTimeZone } from './client.js';
import { codeOf, connectError, statementError } from './errors.js';
import { abortReason, executeOn, refuseUnlessReading, run, type Flavor } from './execute.js';
import { mysqlDenyList } from './forbidden.js';
import { refuseDeniedCalls } from '../shared/sql-calls.js';

const INTROSPECTION_TIMEOUT_MS = 60_000;

const INTROSPECTION_SQL = `
SELECT c.TABLE_SCHEMA, c.TABLE_NAME, t.TABLE_TYPE, c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE
  FROM information_schema.COLUMNS c
  JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
 WHERE c.TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
   AND t.TABLE_TYPE IN ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')
 ORDER BY c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION`;

export function openMysqlSession(config: ConnectionConfig, limits: ConnectorLimits): ConnectorSession {
  const where = `${config.host}:${config.port}`;
  const timeZone = sessionTimeZone(config);
  // ssl_mode prefer: TLS first; a server without TLS switches the session to plain text once.
  let withTls = config.sslMode !== 'disable';
  let pool = createPool(config, limits, withTls);
  let flavor: Promise<Flavor> | null = null;
  let closed = false;

  const take = (): Promise<mysql.PoolConnection> => new Promise((resolve, reject) => {
    pool.getConnection((err, conn) => (err ? reject(err) : resolve(conn)));
  });

  const acquire = async (signal: AbortSignal): Promise<mysql.PoolConnection> => {
    if (closed) throw new DomainError('connection.unreachable', 'The connection was closed');
    if (signal.aborted) throw abortReason(signal);
    const attempt = async (): Promise<mysql.PoolConnection> => {
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
    return acquireUnlessAborted(attempt(), signal, (conn) => conn.release(),
      (err) => (signal.aborted ? abortReason(signal) : connectError(err, where)));
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

  /** Runs our own statement, honouring the signal by killing it. */
  const guarded = async <T>(conn: mysql.PoolConnection, signal: AbortSignal, work: () => Promise<T>): Promise<T> => {
    const onAbort = (): void => { void kill(conn.threadId).catch(() => conn.destroy()); };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await work();
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };

  return {
    async test(signal) {
      const conn = await acquire(signal);
      try {
        return await guarded(conn, signal, async () => {
          const version = await versionOf(conn);
          const started = performance.now();
          await run(conn, 'SELECT 1');
          const roundTripMs = Math.round((performance.now() - started) * 10) / 10;
          const serverVersion = /mariadb/i.test(version) ? `MariaDB ${version.replace(/-MariaDB.*$/i, '')}` : `MySQL ${version}`;
          return { serverVersion, roundTripMs };
        });
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        throw connectError(err, where);
      } finally {
        conn.release();
      }
    },

    async introspect(signal) {
      const conn = await acquire(signal);
      let healthy = true;
      try {
        return await guarded(conn, signal, async () => {
          const limit = await flavorOf(conn) === 'mariadb'
            ? `max_statement_time = ${INTROSPECTION_TIMEOUT_MS / 1000}`
            : `max_execution_time = ${INTROSPECTION_TIMEOUT_MS}`;
          await run(conn, `SET SESSION ${limit}`);
          await run(conn, 'START TRANSACTION READ ONLY');
          return snapshot(await run(conn, INTROSPECTION_SQL));
        });
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        throw statementError(err);
      } finally {
        try { await run(conn, 'ROLLBACK'); } catch { healthy = false; }
        if (healthy) conn.release(); else conn.destroy();
      }
    },

    async execute(statement, options) {
      if (statement.sql.trim().length === 0) throw new DomainError('query.failed', 'The statement is empty');
      refuseUnlessReading(statement.sql);
      refuseDeniedCalls(mysqlDenyList, statement.sql);
      const conn = await acquire(options.signal);
      options.onConnected?.();
      let kind: Flavor;
      try {
        kind = await flavorOf(conn);
      } catch (err) {
        conn.destroy();
        throw options.signal.aborted ? abortReason(options.signal) : statementError(err);
      }
      return executeOn({ conn, flavor: kind, timeZone, kill }, statement, options);
    },

    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => { pool.end(() => resolve()); });
    },
  };
}

function snapshot(rows: unknown[][]): SchemaSnapshot {
  const tables: SchemaTable[] = [];
  let current: SchemaTable | undefined;
  for (const [schema, name, tableType, column, type, nullable] of rows as string[][]) {
    if (!current || current.schema !== schema || current.name !== name) {
      current = { schema: schema!, name: name!, kind: tableType === 'VIEW' ? 'view' : 'table', columns: [] };
      tables.push(current);
    }
    current.columns.push({ name: column!, type: type!, nullable: nullable === 'YES' });
  }
  return { tables };
}
