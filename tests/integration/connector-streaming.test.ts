/**
 * Large results stream in batches and stay open on the server while the consumer has not asked
 * for more; cancelling (the signal, or leaving the loop) and the time limit really stop the
 * statement on the database; the pool is bounded; introspection lists tables, views and columns.
 * Real PostgreSQL and MariaDB.
 */
import { randomBytes } from 'node:crypto';
import { mysqlConnector } from '../../src/plugins/mysql/index.js';
import { postgresConnector } from '../../src/plugins/postgres/index.js';
import type { ConnectorSession } from '../../src/domain/plugins/connector.js';
import { collect, createMysqlScratch, createPgScratch, noSignal, type ScratchDb } from '../support/connector-dbs.js';

let pg: ScratchDb;
let my: ScratchDb;
let pgSession: ConnectorSession;
let mySession: ConnectorSession;
const appName = `herald_t_${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  [pg, my] = await Promise.all([createPgScratch(), createMysqlScratch()]);
  pgSession = postgresConnector.open({ ...pg.config, options: { application_name: appName } }, { poolSize: 2, connectTimeoutMs: 5000 });
  mySession = mysqlConnector.open(my.config, { poolSize: 2, connectTimeoutMs: 5000 });
});

afterAll(async () => {
  await Promise.all([pgSession?.close(), mySession?.close()]);
  await Promise.all([pg?.drop(), my?.drop()]);
});

/** Our backends on the PostgreSQL: state and query. */
const pgBackends = async () => await pg.admin(
  'select state, query from pg_stat_activity where application_name = $1 order by pid', [appName],
) as Array<{ state: string; query: string }>;

/** Our statements running on the MariaDB (not the admin's own connection). */
const myRunning = async () => await my.admin(
  "SELECT COMMAND AS command, INFO AS info FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID() AND COMMAND <> 'Sleep'", [my.name],
) as Array<{ command: string; info: string | null }>;

/** Polls until the condition holds (the server acts on a cancel asynchronously); 10 s at most. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i += 1) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const options = (signal = noSignal(), timeoutMs = 20_000, batchSize = 1000) => ({ signal, timeoutMs, batchSize });

test('PostgreSQL: rows come in batches of batchSize from a server-side portal', async () => {
  const stream = await pgSession.execute({ sql: 'select g from generate_series(1, 2500) g', params: [] }, options());
  const { rows, batches } = await collect(stream);
  expect(batches).toBe(3);
  expect(rows).toHaveLength(2500);
  expect(rows[2499]).toEqual([2500]);
});

test('MariaDB: rows come in batches of batchSize from a streaming query', async () => {
  const stream = await mySession.execute({ sql: 'SELECT seq FROM seq_1_to_2500', params: [] }, options());
  const { rows, batches } = await collect(stream);
  expect(batches).toBe(3);
  expect(rows).toHaveLength(2500);
  expect(rows[2499]).toEqual([2500]);
});

test('PostgreSQL: a million-row statement stays open while the consumer waits; leaving the loop closes it on the server', async () => {
  const stream = await pgSession.execute({ sql: 'select g, md5(g::text) from generate_series(1, 1000000) g', params: [] }, options(noSignal(), 20_000, 100));
  const open = await pgBackends();
  expect(open.some((b) => b.query.includes('generate_series(1, 1000000)') && b.state !== 'idle')).toBe(true);
  let seen = 0;
  for await (const batch of stream.batches) {
    seen += batch.length;
    if (seen >= 300) break;
  }
  expect(seen).toBe(300);
  expect(await eventually(async () => (await pgBackends()).every((b) => b.state === 'idle'))).toBe(true);
});

test('MariaDB: a million-row statement stays open while the consumer waits; leaving the loop kills it on the server', async () => {
  const stream = await mySession.execute({ sql: 'SELECT a.seq, MD5(a.seq) FROM seq_1_to_1000000 a', params: [] }, options(noSignal(), 20_000, 100));
  expect((await myRunning()).some((p) => p.info?.includes('seq_1_to_1000000'))).toBe(true);
  let seen = 0;
  for await (const batch of stream.batches) {
    seen += batch.length;
    if (seen >= 300) break;
  }
  expect(seen).toBe(300);
  expect(await eventually(async () => (await myRunning()).length === 0)).toBe(true);
});

test('PostgreSQL: aborting the signal cancels the running statement on the server and rejects with its reason', async () => {
  const controller = new AbortController();
  const pending = pgSession.execute({ sql: 'select pg_sleep(30)', params: [] }, options(controller.signal));
  expect(await eventually(async () => (await pgBackends()).some((b) => b.state === 'active' && b.query.includes('pg_sleep(30)')))).toBe(true);
  controller.abort(new Error('stopped by the test'));
  await expect(pending).rejects.toThrow('stopped by the test');
  expect(await eventually(async () => (await pgBackends()).every((b) => b.state === 'idle'))).toBe(true);
});

test('MariaDB: aborting the signal kills the running statement on the server and rejects with its reason', async () => {
  const controller = new AbortController();
  const pending = mySession.execute({ sql: 'SELECT SLEEP(30)', params: [] }, options(controller.signal));
  expect(await eventually(async () => (await myRunning()).some((p) => p.info?.includes('SLEEP(30)')))).toBe(true);
  controller.abort(new Error('stopped by the test'));
  await expect(pending).rejects.toThrow('stopped by the test');
  expect(await eventually(async () => (await myRunning()).length === 0)).toBe(true);
});

test.each([
  ['PostgreSQL', () => pgSession, 'select pg_sleep(30)', async () => (await pgBackends()).every((b) => b.state === 'idle')],
  ['MariaDB', () => mySession, 'SELECT SLEEP(30)', async () => (await myRunning()).length === 0],
])('%s: an abort at any step (connect, begin, describe/prepare, first fetch) never leaves the statement running', async (_name, session, sql, allIdle) => {
  for (let delayMs = 0; delayMs < 24; delayMs += 2) {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error(`stopped after ${delayMs} ms`)), delayMs);
    // A time limit beyond the test's own: only the abort can end the 30 s sleep in time.
    await expect(session().execute({ sql, params: [] }, options(controller.signal, 120_000))).rejects.toThrow(`stopped after ${delayMs} ms`);
    expect(await eventually(allIdle)).toBe(true);
  }
});

test('PostgreSQL: the time limit is enforced by the server: query.timeout', async () => {
  await expect(pgSession.execute({ sql: 'select pg_sleep(10)', params: [] }, options(noSignal(), 300)))
    .rejects.toMatchObject({ code: 'query.timeout' });
  expect((await pgBackends()).every((b) => b.state === 'idle')).toBe(true);
});

test('MariaDB: the time limit is enforced by the server (max_statement_time): query.timeout', async () => {
  await expect(mySession.execute({ sql: 'SELECT SLEEP(10) FROM seq_1_to_3', params: [] }, options(noSignal(), 300)))
    .rejects.toMatchObject({ code: 'query.timeout' });
  // The server may answer the ROLLBACK a moment before its thread shows as sleeping again.
  expect(await eventually(async () => (await myRunning()).length === 0)).toBe(true);
});

test('a syntax error is query.failed with the database message', async () => {
  await expect(pgSession.execute({ sql: 'selec 1', params: [] }, options())).rejects.toMatchObject({ code: 'query.failed', message: expect.stringContaining('syntax error') });
  await expect(mySession.execute({ sql: 'SELECT FROM', params: [] }, options())).rejects.toMatchObject({ code: 'query.failed', message: expect.stringContaining('1064') });
});

test('a placeholder without a value (or a value without a placeholder) is query.failed before anything runs', async () => {
  await expect(pgSession.execute({ sql: 'select $1::int', params: [] }, options())).rejects.toMatchObject({ code: 'query.failed', message: expect.stringContaining('placeholders') });
  await expect(mySession.execute({ sql: 'SELECT ?', params: [1, 2] }, options())).rejects.toMatchObject({ code: 'query.failed', message: expect.stringContaining('placeholders') });
});

test.each([
  ['PostgreSQL', () => pgSession, 'select pg_sleep(0.3)', async () => (await pgBackends()).length],
  ['MariaDB', () => mySession, 'SELECT SLEEP(0.3)', async () => (await my.admin(
    'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()', [my.name],
  ) as Array<{ n: number }>)[0]!.n],
])('%s: the pool holds at most poolSize connections; more statements wait their turn', async (_name, session, sql, connections) => {
  let peak = 0;
  let running = true;
  const watch = (async () => { while (running) { peak = Math.max(peak, await connections()); await new Promise((r) => setTimeout(r, 50)); } })();
  const results = await Promise.all(Array.from({ length: 5 }, async () => collect(await session().execute({ sql, params: [] }, options()))));
  running = false;
  await watch;
  expect(results.every((r) => r.rows.length === 1)).toBe(true);
  expect(peak).toBeGreaterThan(0);
  expect(peak).toBeLessThanOrEqual(2);
});

test('PostgreSQL: introspection lists tables, views and materialized views with column types and nullability, not system schemas', async () => {
  await pg.admin('create schema sales');
  await pg.admin('create table sales.orders (id bigint primary key, total numeric(12,2), note varchar(200))');
  await pg.admin('create view sales.big_orders as select id, total from sales.orders where total > 100');
  await pg.admin('create materialized view order_count as select count(*) as n from sales.orders');
  const { tables } = await pgSession.introspect(noSignal());
  expect(tables).toEqual([
    { schema: 'public', name: 'order_count', kind: 'view', columns: [{ name: 'n', type: 'bigint', nullable: true }] },
    { schema: 'sales', name: 'big_orders', kind: 'view', columns: [{ name: 'id', type: 'bigint', nullable: true }, { name: 'total', type: 'numeric(12,2)', nullable: true }] },
    { schema: 'sales', name: 'orders', kind: 'table', columns: [
      { name: 'id', type: 'bigint', nullable: false }, { name: 'total', type: 'numeric(12,2)', nullable: true },
      { name: 'note', type: 'character varying(200)', nullable: true },
    ] },
  ]);
});

test('MariaDB: introspection lists tables and views with column types and nullability, not system schemas', async () => {
  await my.admin('CREATE TABLE orders (id BIGINT PRIMARY KEY, total DECIMAL(12,2), note VARCHAR(200))');
  await my.admin('CREATE VIEW big_orders AS SELECT id, total FROM orders WHERE total > 100');
  const { tables } = await mySession.introspect(noSignal());
  const ours = tables.filter((t) => t.schema === my.name);
  expect(ours).toEqual([
    { schema: my.name, name: 'big_orders', kind: 'view', columns: [{ name: 'id', type: 'bigint(20)', nullable: false }, { name: 'total', type: 'decimal(12,2)', nullable: true }] },
    { schema: my.name, name: 'orders', kind: 'table', columns: [
      { name: 'id', type: 'bigint(20)', nullable: false }, { name: 'total', type: 'decimal(12,2)', nullable: true },
      { name: 'note', type: 'varchar(200)', nullable: true },
    ] },
  ]);
  expect(tables.some((t) => ['mysql', 'information_schema', 'performance_schema', 'sys'].includes(t.schema))).toBe(false);
});
