/**
 * Scratch databases on the real PostgreSQL and MariaDB for the connector tests: each test file
 * makes its own (herald_t_conn_<time>_<random>) and drops it. MariaDB is found through
 * HERALD_TEST_MYSQL_URL (scripts/ensure-services.sh exports it; default mysql://root@127.0.0.1:3306).
 */
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2';
import postgres from 'postgres';
import type { ConnectionConfig, ConnectorSession, RowStream, CellValue } from '../../src/domain/plugins/connector.js';
import { adminDatabaseUrl } from './env.js';

export const mysqlUrl = (): string => process.env.HERALD_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';

export function scratchName(): string {
  return `herald_t_conn_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
}

function configFromUrl(url: URL, database: string, defaultPort: number): ConnectionConfig {
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : defaultPort,
    database,
    username: decodeURIComponent(url.username),
    password: url.password ? decodeURIComponent(url.password) : null,
    sslMode: 'disable',
    sslCa: null,
    options: {},
  };
}

export interface ScratchDb {
  name: string;
  config: ConnectionConfig;
  /** Runs SQL as the admin (outside the connector) in this database. */
  admin(sql: string, params?: unknown[]): Promise<unknown[]>;
  drop(): Promise<void>;
}

export async function createPgScratch(): Promise<ScratchDb> {
  const name = scratchName();
  const server = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => undefined });
  await server.unsafe(`create database ${name}`);
  await server.end();
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  const db = postgres(url.toString(), { max: 1, onnotice: () => undefined });
  return {
    name,
    config: configFromUrl(url, name, 5432),
    admin: async (sql, params = []) => [...await db.unsafe(sql, params as never[])],
    async drop() {
      await db.end();
      const a = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => undefined });
      try { await a.unsafe(`drop database if exists ${name} with (force)`); } finally { await a.end(); }
    },
  };
}

export function mysqlAdmin(database?: string): mysql.Connection {
  const url = new URL(mysqlUrl());
  return mysql.createConnection({
    host: url.hostname,
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username),
    password: url.password ? decodeURIComponent(url.password) : undefined,
    database,
    multipleStatements: false,
    flags: ['-LOCAL_FILES'],
  });
}

export function mysqlRun(conn: mysql.Connection, sql: string, params: unknown[] = []): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    conn.query(sql, params, (err, rows) => (err ? reject(err) : resolve(rows as unknown[])));
  });
}

export async function createMysqlScratch(): Promise<ScratchDb> {
  const name = scratchName();
  const server = mysqlAdmin();
  await mysqlRun(server, `CREATE DATABASE ${name}`);
  server.end();
  const db = mysqlAdmin(name);
  return {
    name,
    config: configFromUrl(new URL(mysqlUrl()), name, 3306),
    admin: (sql, params = []) => mysqlRun(db, sql, params),
    async drop() {
      try { await mysqlRun(db, `DROP DATABASE IF EXISTS ${name}`); } finally { db.end(); }
    },
  };
}

export const noSignal = (): AbortSignal => new AbortController().signal;

/** Every row of a stream, and the number of batches it came in. */
export async function collect(stream: RowStream): Promise<{ rows: CellValue[][]; batches: number }> {
  const rows: CellValue[][] = [];
  let batches = 0;
  for await (const batch of stream.batches) {
    batches += 1;
    rows.push(...batch);
  }
  return { rows, batches };
}

/** Runs a statement through a session to the end; the error's code, or 'ok'. */
export async function outcome(session: ConnectorSession, sql: string, params: Array<string | number | boolean | null> = []): Promise<string> {
  try {
    await collect(await session.execute({ sql, params }, { signal: noSignal(), timeoutMs: 10_000, batchSize: 100 }));
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}
