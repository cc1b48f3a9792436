/**
 * The postgres connector runs read-only statements only, enforced by the service on a real
 * PostgreSQL: every kind of write fails with query.not_read_only or query.failed and leaves the
 * data as it was; statements go through the extended protocol, one at a time.
 */
import { postgresConnector } from '../../src/plugins/postgres/index.js';
import type { ConnectorSession } from '../../src/domain/plugins/connector.js';
import { collect, createPgScratch, noSignal, outcome, type ScratchDb } from '../support/connector-dbs.js';

let db: ScratchDb;
let session: ConnectorSession;

beforeAll(async () => {
  db = await createPgScratch();
  await db.admin('create table items (id int primary key, name text not null)');
  await db.admin("insert into items values (1, 'one'), (2, 'two')");
  await db.admin('create sequence item_ids');
  await db.admin(`create function add_item() returns int language plpgsql as $$
    begin insert into items values (99, 'written by a function'); return 99; end $$`);
  await db.admin("create role herald_t_other nologin");
  // Session-level locks and settings called by a function of the database: the statement's text
  // does not name them (query.forbidden_function cannot see them), the checks after the rows do.
  await db.admin("create function take_lock(k int) returns void language sql as 'select pg_advisory_lock(k)'");
  await db.admin("create function change_path() returns text language sql as $$select set_config('search_path', 'nowhere', false)$$");
  session = postgresConnector.open(db.config, { poolSize: 2, connectTimeoutMs: 5000 });
});

afterAll(async () => {
  await session?.close();
  await db?.admin('drop owned by herald_t_other').catch(() => undefined);
  await db?.drop();
  const { default: postgres } = await import('postgres');
  const { adminDatabaseUrl } = await import('../support/env.js');
  const a = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => undefined });
  await a.unsafe('drop role if exists herald_t_other').catch(() => undefined);
  await a.end();
});

async function unchanged(): Promise<void> {
  expect(await db.admin('select id, name from items order by id')).toEqual([{ id: 1, name: 'one' }, { id: 2, name: 'two' }]);
  expect(await db.admin("select count(*)::int as n from pg_class where relname in ('made_by_ddl', 'items_copy')")).toEqual([{ n: 0 }]);
  expect(await db.admin('select last_value::int as v, is_called from item_ids')).toEqual([{ v: 1, is_called: false }]);
  expect(await db.admin('select count(*)::int as n from pg_largeobject_metadata')).toEqual([{ n: 0 }]);
  // pg_locks is the whole cluster's: only this file's database counts (other files take advisory locks).
  expect(await db.admin(
    "select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())",
  )).toEqual([{ n: 0 }]);
}

test('a plain SELECT reads', async () => {
  const stream = await session.execute({ sql: 'select id, name from items where id = $1', params: [2] }, { signal: noSignal(), timeoutMs: 5000, batchSize: 10 });
  expect(stream.columns).toEqual([{ name: 'id', type: 'int4' }, { name: 'name', type: 'text' }]);
  expect((await collect(stream)).rows).toEqual([[2, 'two']]);
});

test.each([
  ['INSERT', "insert into items values (3, 'three')"],
  ['INSERT … RETURNING', "insert into items values (3, 'three') returning id"],
  ['UPDATE', "update items set name = 'changed'"],
  ['UPDATE … RETURNING', "update items set name = 'changed' returning id"],
  ['DELETE', 'delete from items'],
  ['DELETE … RETURNING', 'delete from items returning id'],
  ['CREATE TABLE', 'create table made_by_ddl (a int)'],
  ['CREATE TABLE AS', 'create table items_copy as select * from items'],
  ['DROP TABLE', 'drop table items'],
  ['ALTER TABLE', 'alter table items add column extra int'],
  ['TRUNCATE', 'truncate items'],
  ['COPY FROM', 'copy items from stdin'],
  ['COPY TO', 'copy items to stdout'],
  ['SELECT … FOR UPDATE', 'select * from items for update'],
  ['SELECT … FOR SHARE', 'select * from items for share'],
  ['nextval()', "select nextval('item_ids')"],
  ['setval()', "select setval('item_ids', 42)"],
  ['a writing function', 'select add_item()'],
  ['lo_create()', 'select lo_create(0)'],
  ['lo_from_bytea()', "select lo_from_bytea(0, '\\x00')"],
  ['pg_advisory_lock() inside a function', 'select take_lock(42)'],
  ['pg_advisory_xact_lock()', 'select pg_advisory_xact_lock(43)'],
  ['SET default_transaction_read_only = off', 'set default_transaction_read_only = off'],
  ['SET transaction_read_only = off', 'set transaction_read_only = off'],
  ['SET ROLE', 'set role herald_t_other'],
  ['SET SESSION AUTHORIZATION', 'set session authorization herald_t_other'],
  ['RESET ALL', 'reset all'],
  ['COMMIT', 'commit'],
  ['BEGIN', 'begin'],
  ['PREPARE', 'prepare p as select 1'],
  ['LISTEN', 'listen herald'],
  ['DO block', "do $$ begin insert into items values (4, 'four'); end $$"],
  ['CALL', 'call nothing()'],
  ['a writable CTE', "with w as (insert into items values (5, 'five') returning id) select * from w"],
  ['EXPLAIN ANALYZE of a write', "explain analyze insert into items values (6, 'six')"],
])('%s fails and changes nothing', async (_name, sql) => {
  expect(['query.not_read_only', 'query.failed']).toContain(await outcome(session, sql));
  await unchanged();
});

test.each([
  ['; COMMIT; INSERT', "select 1; commit; insert into items values (7, 'seven')"],
  ['; INSERT', "select 1; insert into items values (7, 'seven')"],
  ['SET transaction_read_only = off; INSERT', "set transaction_read_only = off; insert into items values (7, 'seven')"],
  ['ROLLBACK; INSERT', "rollback; insert into items values (7, 'seven')"],
  ['; -- comment, INSERT', "select 1; -- \n insert into items values (7, 'seven')"],
])('a second statement after a semicolon (%s) is refused by Parse and changes nothing', async (_name, sql) => {
  await expect(session.execute({ sql, params: [] }, { signal: noSignal(), timeoutMs: 5000, batchSize: 10 }))
    .rejects.toMatchObject({ code: 'query.failed', message: expect.stringContaining('cannot insert multiple commands into a prepared statement') });
  await unchanged();
});

test('the same text run through postgres.js without the connector would write: the extended protocol is what stops it', async () => {
  // Proof that the guard is the protocol, not luck: the simple protocol runs all three statements.
  const { default: postgres } = await import('postgres');
  const { adminDatabaseUrl } = await import('../support/env.js');
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${db.name}`;
  const raw = postgres(url.toString(), { max: 1, onnotice: () => undefined });
  try {
    const reserved = await raw.reserve();
    await reserved.unsafe('begin read only');
    await reserved.unsafe("select 1; commit; insert into items values (8, 'eight')");
    reserved.release();
    expect(await db.admin('select count(*)::int as n from items where id = 8')).toEqual([{ n: 1 }]);
  } finally {
    await db.admin('delete from items where id = 8');
    await raw.end();
  }
  await unchanged();
});

test('a statement without rows is refused before it runs: not_read_only, and nothing was executed', async () => {
  await expect(session.execute({ sql: 'create table made_by_ddl (a int)', params: [] }, { signal: noSignal(), timeoutMs: 5000, batchSize: 10 }))
    .rejects.toMatchObject({ code: 'query.not_read_only' });
  await unchanged();
});

test('session locks never outlive the statement, and the pooled connection is clean afterwards', async () => {
  const single = postgresConnector.open(db.config, { poolSize: 1, connectTimeoutMs: 5000 });
  try {
    expect(await outcome(single, 'select take_lock(7), change_path()')).toBe('query.not_read_only');
    await unchanged();
    // The one pooled connection went back rolled back: the refused statement's set_config is gone.
    const stream = await single.execute({ sql: "select current_setting('search_path') as p, current_setting('transaction_read_only') as ro", params: [] }, { signal: noSignal(), timeoutMs: 5000, batchSize: 10 });
    expect((await collect(stream)).rows).toEqual([['"$user", public', 'on']]);
  } finally {
    await single.close();
  }
});
