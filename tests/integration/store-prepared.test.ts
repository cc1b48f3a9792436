/**
 * The store's statements made by drizzle are named prepared statements of their connection, in
 * transactions and savepoints too: postgres.js sends an unnamed statement with parameters in two
 * round trips (Parse and Describe, then Bind and Execute), a prepared one in one once described.
 * A statement with more than PREPARED_PARAMETERS_MAX parameters (a family that grows with its
 * input) stays unnamed, and with `prepare: false` (PgBouncer before 1.21) nothing is prepared.
 * Read from PostgreSQL's own `pg_prepared_statements` of the one connection (max: 1).
 */
import { sql as q } from 'drizzle-orm';
import { createDb, PREPARED_PARAMETERS_MAX } from '../../src/infra/db/client.js';
import { adminDatabaseUrl } from '../support/env.js';

type Store = ReturnType<typeof createDb>;

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
  const many = Array.from({ length: PREPARED_PARAMETERS_MAX + 1 }, (_, i) => i);
  const wide = await db.execute(q`select count(*)::int as herald_probe_wide from unnest(array[${q.join(many.map((i) => q`${i}::int`), q`, `)}])`);
  expect(wide[0]).toEqual({ herald_probe_wide: many.length });
}

it('prepares what drizzle sends, in transactions and savepoints, but not a statement with too many parameters', async () => {
  const store = createDb(adminDatabaseUrl(), { max: 1 });
  try {
    await sendSome(store);
    // Once more: the prepared statements are used again, not made again.
    await sendSome(store);
    const texts = await preparedTexts(store);
    for (const probe of ['herald_probe_plain', 'herald_probe_tx', 'herald_probe_savepoint']) {
      expect(texts.filter((t) => t.includes(probe))).toHaveLength(1);
    }
    expect(texts.some((t) => t.includes('herald_probe_wide'))).toBe(false);
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
