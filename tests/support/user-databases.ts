/**
 * "User databases" for connection and query tests: a scratch database of its own per test file
 * on the PostgreSQL (and MariaDB) the suite uses, seeded with a little data, dropped afterwards.
 */
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { adminDatabaseUrl, databaseUrl } from './env.js';

export interface PostgresSource {
  database: string;
  host: string;
  port: number;
  username: string;
  /** A client on the scratch database, for seeding and for checking that nothing changed. */
  sql: postgres.Sql;
  /** The body of POST /connections for this database. */
  connection(name: string): Record<string, unknown>;
  drop(): Promise<void>;
}

export async function createPostgresSource(seed: (sql: postgres.Sql) => Promise<void>): Promise<PostgresSource> {
  const database = `herald_t_src_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${database}`);
  await admin.end();
  const url = new URL(databaseUrl(database));
  const sql = postgres(url.toString(), { max: 2, onnotice: () => undefined });
  await seed(sql);
  const host = url.hostname;
  const port = Number(url.port || 5432);
  const username = decodeURIComponent(url.username || 'postgres');
  return {
    database, host, port, username, sql,
    connection: (name) => ({ name, type: 'postgres', host, port, database, username, ssl_mode: 'disable' }),
    async drop() {
      await sql.end();
      const a = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => undefined });
      try { await a.unsafe(`drop database if exists ${database} with (force)`); } finally { await a.end(); }
    },
  };
}
