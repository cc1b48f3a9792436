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
  const name = `herald_tpl_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => undefined });
  try {
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
