/**
 * Once per test run (called by global-setup.mjs): a template database with every migration
 * applied; prints its name. Each test file clones it (CREATE DATABASE … TEMPLATE), which takes
 * milliseconds, and drops its clone at the end.
 */
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/infra/db/migrate.js';
import { adminDatabaseUrl, databaseUrl } from './env.js';

async function makeTemplate(): Promise<void> {
  const name = `herald_tpl_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => undefined });
  try {
    // Databases of runs that were killed before their teardown, older than six hours.
    const stale = await admin<{ datname: string }[]>`
      select datname from pg_database where datname ~ '^herald_(t|tpl)_[0-9]+_[0-9a-f]+$'
        and split_part(datname, '_', 3)::bigint < extract(epoch from now())::bigint - 6 * 3600`;
    for (const { datname } of stale) await admin.unsafe(`drop database if exists ${datname} with (force)`);
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const sql = postgres(databaseUrl(name), { max: 1, onnotice: () => undefined });
  try {
    await migrate(sql);
  } finally {
    await sql.end();
  }
  process.stdout.write(name);
}

await makeTemplate();
