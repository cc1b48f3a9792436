/**
 * The store's statements made by drizzle are named prepared statements of their connection, in
 * transactions and savepoints too: postgres.js sends an unnamed statement with parameters in two
 * round trips (Parse and Describe, then Bind and Execute), a prepared one in one once described.
 * A statement with more than PREPARED_PARAMETERS_MAX parameters (a family that grows with its
 * input) stays unnamed, and with `prepare: false` (PgBouncer before 1.21) nothing is prepared.
 * Read from PostgreSQL's own `pg_prepared_statements` of the one connection (max: 1).
 */
import { eq, sql as q } from 'drizzle-orm';
import { pgTable, text } from 'drizzle-orm/pg-core';
import { createDb, PREPARED_PARAMETERS_MAX } from '../../src/infra/db/client.js';
import { adminDatabaseUrl } from '../support/env.js';

type Store = ReturnType<typeof createDb>;

/** A catalogue table, for a select made by drizzle's builder (its rows come back as values, mapped). */
const pgDatabase = pgTable('pg_database', { datname: text('datname') });

/** `select $1 + $2 + … + $n` with `count` parameters, named by `probe`. */
const sumOf = (probe: string, count: number) =>
  q`select (${q.join(Array.from({ length: count }, (_, i) => q`${i}::int`), q` + `)}) as ${q.identifier(probe)}`;

/** The texts of the statements the connection holds prepared. */
const preparedTexts = async (store: Store) =>
  (await store.sql`select statement from pg_prepared_statements`).map((r) => r.statement as string);

/** A drizzle statement through the store, in a transaction and in a savepoint, and one with too many parameters. */
async function sendSome(store: Store) {
  const { db } = store;
  const rows = await db.execute(q`select ${'one'}::text as herald_probe_plain`);
  expect(rows[0]).toEqual({ herald_probe_plain: 'one' });
  await db.transaction(async (tx) => {
    await tx.execute(q`select ${'two'}::text as herald_probe_tx`);
    await tx.transaction(async (sp) => { await sp.execute(q`select ${'three'}::text as herald_probe_savepoint`); });
  });
  const named = await db.select({ name: pgDatabase.datname }).from(pgDatabase).where(eq(pgDatabase.datname, 'postgres'));
  expect(named).toEqual([{ name: 'postgres' }]);
  const n = PREPARED_PARAMETERS_MAX;
  expect(await db.execute(sumOf('herald_probe_at_most', n))).toEqual([{ herald_probe_at_most: (n * (n - 1)) / 2 }]);
  expect(await db.execute(sumOf('herald_probe_wide', n + 1))).toEqual([{ herald_probe_wide: ((n + 1) * n) / 2 }]);
  // No parameters: the simple protocol, which prepares nothing.
  expect(await db.execute(q`select 1 as herald_probe_simple`)).toEqual([{ herald_probe_simple: 1 }]);
}

it('prepares what drizzle sends, in transactions and savepoints, but not a statement with too many parameters', async () => {
  const store = createDb(adminDatabaseUrl(), { max: 1 });
  try {
    await sendSome(store);
    // Once more: the prepared statements are used again, not made again.
    await sendSome(store);
    const texts = await preparedTexts(store);
    for (const probe of ['herald_probe_plain', 'herald_probe_tx', 'herald_probe_savepoint', 'pg_database', 'herald_probe_at_most']) {
      expect(texts.filter((t) => t.includes(probe))).toHaveLength(1);
    }
    expect(texts.some((t) => t.includes('herald_probe_wide') || t.includes('herald_probe_simple'))).toBe(false);
  } finally {
    await store.sql.end();
  }
});

it('takes unsafe(text, options), as postgres.js does', async () => {
  const store = createDb(adminDatabaseUrl(), { max: 1 });
  try {
    // postgres.js's own code allows it (index.js: unsafe), its type declarations do not.
    const client = (store.db as unknown as { $client: { unsafe(text: string, options: { prepare?: boolean }): Promise<unknown> } }).$client;
    expect(await client.unsafe('select 2 as two', { prepare: false })).toEqual([{ two: 2 }]);
  } finally {
    await store.sql.end();
  }
});

it('prepares nothing when the store is told not to (SVC_DATABASE_PREPARE=false)', async () => {
  const store = createDb(adminDatabaseUrl(), { max: 1, prepare: false });
  try {
    await sendSome(store);
    expect(await preparedTexts(store)).toEqual([]);
  } finally {
    await store.sql.end();
  }
});
