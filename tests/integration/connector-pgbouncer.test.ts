/**
 * A user database behind PgBouncer (Debian's pgbouncer 1.18 on loopback, tests/support/pgbouncer.ts):
 * in transaction pooling, with its defaults (no ignore_startup_parameters needed for the
 * connector) and fewer server connections than the session's pool, the postgres connector's
 * connection test passes, statements run through a cursor and through COPY with the same values
 * as direct, the connection's search_path holds, writes are refused, and a cancel stops the
 * statement on the server. In statement pooling, the connection test says why it cannot work.
 */
import { postgresConnector } from '../../src/plugins/postgres/index.js';
import type { ConnectorSession } from '../../src/domain/plugins/connector.js';
import { collect, createPgScratch, noSignal, outcome, type ScratchDb } from '../support/connector-dbs.js';
import { startPgBouncer, startPgBouncerWith, type PgBouncer } from '../support/pgbouncer.js';

let db: ScratchDb;
let bouncer: PgBouncer;
let session: ConnectorSession;
let direct: ConnectorSession;

beforeAll(async () => {
  db = await createPgScratch();
  await db.admin("create table items as select g as id, interval '1 day' * g as every, decode(lpad(to_hex(g % 256), 2, '0'), 'hex') as raw, g / 3.0 as third, timestamptz '2026-11-29 12:00+01' + g * interval '1 minute' as at from generate_series(1, 2500) g");
  await db.admin('create schema sales');
  await db.admin("create table sales.orders as select 'only in sales'::text as note");
  bouncer = await startPgBouncer({ poolSize: 2 });
  // A pool of 4 sessions' connections in front of 2 server connections: they really share.
  session = postgresConnector.open({ ...db.config, port: bouncer.port }, { poolSize: 4, connectTimeoutMs: 5000 });
  direct = postgresConnector.open(db.config, { poolSize: 2, connectTimeoutMs: 5000 });
}, 60_000);

afterAll(async () => {
  await session?.close();
  await direct?.close();
  await bouncer?.stop();
  await db?.drop();
});

const options = (signal = noSignal(), batchSize = 1000) => ({ signal, timeoutMs: 20_000, batchSize });

test('the connection test passes through PgBouncer in transaction pooling', async () => {
  expect(await session.test(noSignal())).toMatchObject({ serverVersion: expect.stringMatching(/^PostgreSQL \d+/) });
});

test('a statement with parameters reads through a server-side cursor, in batches, with the values it has directly', async () => {
  const sql = 'select id, every, raw, third, at from items where id >= $1 order by id';
  const through = await collect(await session.execute({ sql, params: [1] }, options()));
  expect(through.batches).toBe(3);
  expect(through.rows).toHaveLength(2500);
  expect(through.rows).toEqual((await collect(await direct.execute({ sql, params: [1] }, options()))).rows);
  expect(through.rows[2]).toEqual([3, 'P3D', expect.any(String), '1.00000000000000000000', '2026-11-29T11:03:00Z']);
});

test('a statement without parameters reads through COPY with the values it has directly', async () => {
  const sql = 'select id, every, raw, third, at from items order by id';
  const through = await collect(await session.execute({ sql, params: [] }, options()));
  expect(through.rows).toHaveLength(2500);
  expect(through.rows).toEqual((await collect(await direct.execute({ sql, params: [] }, options()))).rows);
});

test('several statements at once, more than PgBouncer has server connections, each read to the end', async () => {
  const results = await Promise.all([1, 2, 3, 4].map(async (k) =>
    (await collect(await session.execute({ sql: 'select id from items where id % 4 = $1 order by id', params: [k % 4] }, options(noSignal(), 100)))).rows.length));
  expect(results).toEqual([625, 625, 625, 625]);
});

test("the connection's search_path holds in each transaction, and goes no further", async () => {
  const withPath = postgresConnector.open({ ...db.config, port: bouncer.port, options: { search_path: 'sales, public' } }, { poolSize: 2, connectTimeoutMs: 5000 });
  try {
    expect(await withPath.test(noSignal())).toMatchObject({ serverVersion: expect.any(String) });
    expect((await collect(await withPath.execute({ sql: 'select note from orders', params: [] }, options()))).rows).toEqual([['only in sales']]);
    expect((await collect(await withPath.execute({ sql: 'select note from orders where note <> $1', params: [''] }, options()))).rows).toEqual([['only in sales']]);
  } finally {
    await withPath.close();
  }
  // The server connections PgBouncer shares kept nothing of it.
  expect(await outcome(session, 'select note from orders')).toBe('query.failed');
});

test('writes are refused and change nothing', async () => {
  expect(await outcome(session, 'insert into items (id) values (-1) returning id')).toBe('query.not_read_only');
  expect(await outcome(session, 'update items set id = -id returning id')).toBe('query.not_read_only');
  expect(await outcome(session, 'select id from items where id = $1 for update', [1])).toBe('query.not_read_only');
  expect(await db.admin('select count(*)::int as n, min(id)::int as low from items')).toEqual([{ n: 2500, low: 1 }]);
});

test('a cancel stops the statement on the server, and the next one runs', async () => {
  const running = async () => await db.admin(
    // The sleep itself (its wait event), not the Describe before it: a backend shows the statement
    // 'active' while it parses and describes it too, then idle in its transaction until it runs.
    "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and wait_event = 'PgSleep' and query like '%pg_sleep(30)%' and pid <> pg_backend_pid()",
  ) as Array<{ n: number }>;
  const controller = new AbortController();
  const pending = session.execute({ sql: 'select pg_sleep(30) is null as slept', params: [] }, options(controller.signal));
  for (let i = 0; i < 200 && (await running())[0]!.n === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
  expect((await running())[0]!.n).toBe(1);
  controller.abort(new Error('stopped by the test'));
  await expect(pending).rejects.toThrow('stopped by the test');
  for (let i = 0; i < 200 && (await running())[0]!.n > 0; i += 1) await new Promise((r) => setTimeout(r, 50));
  expect((await running())[0]!.n).toBe(0);
  expect((await collect(await session.execute({ sql: 'select 1 as one', params: [] }, options()))).rows).toEqual([[1]]);
});

test('in statement pooling, the connection test fails and says why', async () => {
  const statementMode = await startPgBouncerWith({ poolSize: 2, poolMode: 'statement' });
  const s = postgresConnector.open({ ...db.config, port: statementMode.port }, { poolSize: 1, connectTimeoutMs: 5000 });
  try {
    const err = await s.test(noSignal()).then(() => undefined, (e: unknown) => e as { code?: string; message?: string });
    expect(err).toMatchObject({ code: 'connection.unreachable' });
    expect(err!.message).toMatch(/statement pooling.*pool_mode = transaction/);
  } finally {
    await s.close();
    await statementMode.stop();
  }
});
