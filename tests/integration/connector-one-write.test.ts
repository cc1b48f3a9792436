/**
 * A statement COPY takes, run again on the same pool, goes to PostgreSQL in one write: BEGIN, its
 * Describe, its COPY, the read-only check and the ROLLBACK (src/plugins/postgres/execute.ts
 * openInOneWrite). Counted by a TCP proxy between the pool and the server (each chunk the client
 * sent). The cases where the Describe, read after the COPY was sent, tells something changed since
 * the statement was remembered: a column of a type the catalog does not know (looked up, the
 * statement opened again), a statement that now returns no columns or fails (refused as before),
 * a function that now writes (refused by the read-only transaction: the COPY ran inside it), a run
 * stopped meanwhile, BEGIN's query failing before BEGIN ran (the COPY's own query is read-only
 * then); each time the pool's connection stays usable and nothing is written.
 */
import net, { type AddressInfo } from 'node:net';
import { postgresConnector } from '../../src/plugins/postgres/index.js';
import { postgresRun } from '../../src/plugins/postgres/execute.js';
import { createPgPool } from '../../src/plugins/postgres/pool.js';
import { createTypeCatalog } from '../../src/plugins/postgres/types.js';
import { transactionSettings } from '../../src/plugins/postgres/client.js';
import type { CellValue, ConnectorSession, RowStream } from '../../src/domain/plugins/connector.js';
import { collect, createPgScratch, noSignal, outcome, type ScratchDb } from '../support/connector-dbs.js';

let db: ScratchDb;
let session: ConnectorSession;
let proxy: net.Server;
/** The chunks the pool sent to the server, in order. */
const sent: Buffer[] = [];
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  db = await createPgScratch();
  proxy = net.createServer((client) => {
    const server = net.connect(db.config.port, db.config.host);
    sockets.add(client).add(server);
    client.on('data', (chunk: Buffer) => { sent.push(chunk); server.write(chunk); });
    server.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => { client.destroy(); server.destroy(); };
    client.on('close', end).on('error', end);
    server.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  // One connection: every run takes the same one, so the chunks counted are the run's.
  session = postgresConnector.open({ ...db.config, host: '127.0.0.1', port }, { poolSize: 1, connectTimeoutMs: 5000 });
  await db.admin('create table t (x text, n int)');
  await db.admin("insert into t values ('ok', 1), ('sad', 2)");
  await db.admin('create table written (n int)');
});

afterAll(async () => {
  await session?.close();
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => proxy?.close(resolve));
  await db?.drop();
});

const options = (signal = noSignal()) => ({ signal, timeoutMs: 10_000, batchSize: 100 });

/** Runs a statement to its end; its columns, rows and the chunks the pool sent meanwhile. */
async function counted(sql: string, params: Array<string | number> = []): Promise<{ columns: RowStream['columns']; rows: CellValue[][]; writes: number }> {
  const before = sent.length;
  const stream = await session.execute({ sql, params }, options());
  const { rows } = await collect(stream);
  return { columns: stream.columns, rows, writes: sent.length - before };
}

/** The text of the simple-protocol queries ('Q' messages) in chunks, in order. */
const simpleQueries = (chunks: Buffer[]): string[] => {
  const texts: string[] = [];
  for (const chunk of chunks) {
    for (let at = 0; at + 5 <= chunk.length;) {
      const length = chunk.readUInt32BE(at + 1);
      if (chunk[at] === 0x51) texts.push(chunk.toString('utf8', at + 5, at + length).replace(/\0$/, ''));
      at += 1 + length;
    }
  }
  return texts;
};

test('a statement COPY takes goes in one write once the pool has described it', async () => {
  await counted('select 1'); // the connection opens
  const first = await counted('select x, n from t order by n');
  const again = await counted('select x, n from t order by n');
  const third = await counted('select x, n from t order by n');
  expect(first.writes).toBe(2); // BEGIN and the Describe; then the COPY, the check and the ROLLBACK
  expect(again.writes).toBe(1);
  expect(third.writes).toBe(1);
  for (const run of [first, again, third]) {
    expect(run.columns).toEqual([{ name: 'x', type: 'text' }, { name: 'n', type: 'int4' }]);
    expect(run.rows).toEqual([['ok', 1], ['sad', 2]]);
  }
  // In that write, BEGIN first and the ROLLBACK last: the COPY ran inside the read-only transaction.
  const texts = simpleQueries(sent.slice(-1));
  expect(texts[0]).toMatch(/^begin transaction read only;/);
  expect(texts[1]).toMatch(/^set transaction read only; copy \(\nselect x, n from t order by n\n\) to stdout$/);
  expect(texts[texts.length - 1]).toMatch(/^rollback;/);
  // A statement with a parameter takes the cursor as before.
  expect((await counted('select x from t where n = $1', [2])).rows).toEqual([['sad']]);
});

test('a column whose type the catalog does not know yet is looked up, and the statement opened again', async () => {
  await db.admin('create table moods (m text)');
  await db.admin("insert into moods values ('ok')");
  const sql = 'select m from moods';
  expect((await counted(sql)).columns).toEqual([{ name: 'm', type: 'text' }]);
  await db.admin("create type mood as enum ('ok', 'sad')");
  await db.admin('alter table moods alter column m type mood using m::mood');
  const changed = await counted(sql);
  expect(changed.columns).toEqual([{ name: 'm', type: 'mood' }]);
  expect(changed.rows).toEqual([['ok']]);
  expect(changed.writes).toBeGreaterThan(1);
  // Known now: one write again.
  const again = await counted(sql);
  expect(again).toEqual({ columns: [{ name: 'm', type: 'mood' }], rows: [['ok']], writes: 1 });
});

test('a remembered statement that now returns no columns, or fails, is refused as before; the connection stays usable', async () => {
  await db.admin('create table shrinking (a int)');
  await db.admin('insert into shrinking values (1)');
  expect(await outcome(session, 'select * from shrinking')).toBe('ok');
  expect(await outcome(session, 'select * from shrinking')).toBe('ok');
  await db.admin('alter table shrinking drop column a');
  expect(await outcome(session, 'select * from shrinking')).toBe('query.not_read_only');
  await db.admin('drop table shrinking');
  expect(await outcome(session, 'select * from shrinking')).toBe('query.failed');
  expect((await counted('select x, n from t order by n')).rows).toEqual([['ok', 1], ['sad', 2]]);
  expect(await db.admin("select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'")).toEqual([{ n: 0 }]);
});

test('a remembered statement whose function now writes is refused by the read-only transaction, and nothing is written', async () => {
  await db.admin("create function pick() returns int language sql volatile as 'select 1'");
  expect(await outcome(session, 'select pick()')).toBe('ok');
  expect((await counted('select pick()')).writes).toBe(1);
  await db.admin("create or replace function pick() returns int language sql volatile as 'insert into written values (1) returning n'");
  expect(await outcome(session, 'select pick()')).toBe('query.not_read_only');
  expect(await db.admin('select count(*)::int as n from written')).toEqual([{ n: 0 }]);
  expect((await counted('select x, n from t order by n')).rows).toEqual([['ok', 1], ['sad', 2]]);
});

test('a remembered statement stopped while it runs is cancelled, and the next one on the connection runs', async () => {
  await db.admin('create table pause (s float8)');
  await db.admin('insert into pause values (0)');
  const sql = 'select pg_sleep(s) as slept from pause';
  expect(await outcome(session, sql)).toBe('ok');
  await db.admin('update pause set s = 30');
  const stop = new AbortController();
  const started = Date.now();
  const running = session.execute({ sql, params: [] }, options(stop.signal)).then((stream) => collect(stream));
  setTimeout(() => stop.abort(new Error('stopped by the test')), 300);
  await expect(running).rejects.toThrow('stopped by the test');
  expect(Date.now() - started).toBeLessThan(15_000);
  await db.admin('update pause set s = 0');
  expect((await counted(sql)).rows).toEqual([['']]);
  expect((await counted('select x, n from t order by n')).rows).toEqual([['ok', 1], ['sad', 2]]);
});

test('when BEGIN fails before it ran, the COPY sent behind it runs read-only: a function that writes writes nothing', async () => {
  await db.admin("create function record() returns int language sql volatile as 'insert into written values (7) returning n'");
  await db.admin("create function plain() returns int language sql volatile as 'select 7'");
  const pool = createPgPool(db.config, { poolSize: 1, connectTimeoutMs: 5000 } as never);
  const types = createTypeCatalog();
  const good = transactionSettings(db.config);
  // A text this pool describes once, its function then swapped for one that writes.
  await db.admin('create or replace function pick2() returns int language sql volatile as $$select 7$$');
  const sql = 'select pick2() as n';
  /** One run as the connector's stream does it: open, every batch, the check, close; its error's code or message. */
  const runOnce = async (settings: string): Promise<string> => {
    const conn = await pool.reserve();
    const run = postgresRun(conn, types, { sql, params: [] }, { signal: noSignal(), timeoutMs: 10_000, batchSize: 100 }, settings);
    try {
      await run.open();
      while (await run.fetch()) { /* rows */ }
      await run.check();
      return 'ok';
    } catch (err) {
      return (err as { code?: string }).code ?? String((err as Error).message);
    } finally {
      await run.close();
    }
  };
  try {
    expect(await runOnce(good)).toBe('ok');
    await db.admin('create or replace function pick2() returns int language sql volatile as $$insert into written values (7) returning n$$');
    // A query string that does not parse runs none of its statements: BEGIN never runs.
    const failed = await runOnce(`${good}; select from where`);
    expect(failed).not.toBe('ok');
    expect(await db.admin('select count(*)::int as n from written')).toEqual([{ n: 0 }]);
    // The connection is clean after it: no transaction left open, and the next run reads.
    await db.admin('create or replace function pick2() returns int language sql volatile as $$select 7$$');
    expect(await runOnce(good)).toBe('ok');
  } finally {
    await pool.end(1);
  }
});

test('a remembered statement stopped while its Describe waits for a lock stops before the lock is let go', async () => {
  await db.admin('create table guarded (n int)');
  await db.admin('insert into guarded values (1)');
  const sql = 'select n from guarded';
  expect(await outcome(session, sql)).toBe('ok');
  // Another session holds the table: the Describe (and the COPY behind it) wait for its lock.
  const { default: postgres } = await import('postgres');
  const holder = postgres({ host: db.config.host, port: db.config.port, database: db.config.database, username: db.config.username, max: 1, onnotice: () => undefined });
  try {
    let released = false;
    const locked = holder.begin(async (tx) => {
      await tx`lock table guarded in access exclusive mode`;
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }).finally(() => { released = true; });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stop = new AbortController();
    const running = session.execute({ sql, params: [] }, options(stop.signal)).then((stream) => collect(stream));
    setTimeout(() => stop.abort(new Error('stopped while waiting')), 200);
    await expect(running).rejects.toThrow('stopped while waiting');
    expect(released).toBe(false); // it did not wait for the lock
    await locked;
  } finally {
    await holder.end();
  }
  expect((await counted(sql)).rows).toEqual([[1]]);
  expect(await db.admin("select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'")).toEqual([{ n: 0 }]);
});
