/**
 * Applies drizzle-kit's migrations under one transaction-scoped advisory lock, so that several
 * processes starting together apply each migration exactly once.
 */
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { Sql } from './client.js';
import { migrationsFolder } from '../paths.js';

const LOCK_ID = 7_246_135_001; // any constant shared by every Herald process

export interface MigrationResult {
  applied: number;
  total: number;
}

export async function migrate(sql: Sql, folder = migrationsFolder): Promise<MigrationResult> {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  let applied = 0;
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_ID})`;
    await tx`create table if not exists herald_migrations (
      id serial primary key,
      hash text not null unique,
      created_at bigint not null,
      applied_at timestamptz not null default now()
    )`;
    const done = new Set((await tx<{ hash: string }[]>`select hash from herald_migrations`).map((r) => r.hash));
    for (const m of migrations) {
      if (done.has(m.hash)) continue;
      for (const statement of m.sql) {
        if (statement.trim() !== '') await tx.unsafe(statement);
      }
      await tx`insert into herald_migrations (hash, created_at) values (${m.hash}, ${m.folderMillis})`;
      applied += 1;
    }
  });
  return { applied, total: migrations.length };
}

/** How many bundled migrations the store has not applied yet (all of them on a fresh store). */
export async function pendingMigrations(sql: Sql, folder = migrationsFolder): Promise<number> {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  const [exists] = await sql<{ t: string | null }[]>`select to_regclass('herald_migrations')::text as t`;
  if (!exists?.t) return migrations.length;
  const done = new Set((await sql<{ hash: string }[]>`select hash from herald_migrations`).map((r) => r.hash));
  return migrations.filter((m) => !done.has(m.hash)).length;
}
