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
import { holdTableLock } from '../support/table-lock.js';
import { until } from '../support/wait.js';

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

/**
 * Runs `during` while another session holds `table` locked (for at most 10 s, so a statement that
 * waits for the lock still ends, and `released()` then says it waited).
 */
async function whileLocked(table: string, during: (released: () => boolean) => Promise<void>): Promise<void> {
  const { default: postgres } = await import('postgres');
  const holder = postgres({ host: db.config.host, port: db.config.port, database: db.config.database, username: db.config.username, max: 1, onnotice: () => undefined });
  try {
    const lock = await holdTableLock(holder, table, { atMostMs: 10_000 });
    try {
      await during(() => lock.released);
    } finally {
      await lock.release();
    }
  } finally {
    await holder.end();
  }
}

/**
 * Runs `sql` on the session and stops it after `afterMs` with `message`; expects the run to be
 * rejected with that stop and answers how long it took to end.
 */
async function stoppedRun(sql: string, message: string, afterMs = 300): Promise<number> {
  const stop = new AbortController();
  const started = Date.now();
  const running = session.execute({ sql, params: [] }, options(stop.signal)).then((stream) => collect(stream));
  setTimeout(() => stop.abort(new Error(message)), afterMs);
  await expect(running).rejects.toThrow(message);
  return Date.now() - started;
}

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
  // The COPY's query fails before the COPY outside a transaction block, should BEGIN's query fail before BEGIN ran.
  expect(texts[1]).toBe('savepoint herald_copy; copy (\nselect x, n from t order by n\n) to stdout');
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

test('a stop while a COPY is read and dropped before the statement is opened again (a type now unknown) cancels it', async () => {
  await db.admin('create table slow_moods (m text, s float8)');
  await db.admin("insert into slow_moods values ('ok', 0)");
  const sql = 'select m, pg_sleep(s) as z from slow_moods';
  expect(await outcome(session, sql)).toBe('ok');
  await db.admin("create type slow_mood as enum ('ok', 'sad')");
  await db.admin('alter table slow_moods alter column m type slow_mood using m::slow_mood');
  await db.admin('update slow_moods set s = 20');
  // The COPY sleeps 20 s (its time limit 10 s) unless cancelled.
  expect(await stoppedRun(sql, 'stopped while dropping')).toBeLessThan(9_000); // not the time limit's 10 s (room for a loaded machine)
  await db.admin('update slow_moods set s = 0');
  expect((await counted(sql)).columns).toEqual([{ name: 'm', type: 'slow_mood' }, { name: 'z', type: 'void' }]);
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
  // It sleeps 30 s (its time limit 10 s) unless cancelled.
  expect(await stoppedRun(sql, 'stopped by the test')).toBeLessThan(9_000); // not the time limit's 10 s
  await db.admin('update pause set s = 0');
  expect((await counted(sql)).rows).toEqual([['']]);
  expect((await counted('select x, n from t order by n')).rows).toEqual([['ok', 1], ['sad', 2]]);
});

describe('when BEGIN fails before it ran', () => {
  // The connector's own pieces on a pool of one connection, so that a run's settings (BEGIN's
  // query) can be made to fail as a whole: a query string that does not parse runs none of its
  // statements, as when the server takes a cancel request before BEGIN.
  const good = () => transactionSettings(db.config);
  const broken = () => `${good()}; select from where`;
  let pool: ReturnType<typeof createPgPool>;
  const types = createTypeCatalog();
  beforeAll(() => { pool = createPgPool(db.config, { poolSize: 1, connectTimeoutMs: 5000 } as never); });
  afterAll(async () => { await pool?.end(1); });

  /** One run as the connector's stream does it: open, every batch, the check, close; 'ok' and its rows, or its error. */
  const runOnce = async (sql: string, settings: string, signal = noSignal()): Promise<{ outcome: string; rows: CellValue[][] }> => {
    const conn = await pool.reserve();
    const run = postgresRun(conn, types, { sql, params: [] }, { signal, timeoutMs: 10_000, batchSize: 100 }, settings);
    const rows: CellValue[][] = [];
    try {
      await run.open();
      for (let batch = await run.fetch(); batch; batch = await run.fetch()) rows.push(...batch);
      await run.check();
      return { outcome: 'ok', rows };
    } catch (err) {
      return { outcome: (err as { code?: string }).code ?? String((err as Error).message), rows };
    } finally {
      await run.close();
    }
  };

  test('the COPY sent behind it does not run: no write, no setting, no notification', async () => {
    await db.admin("create or replace function pick2() returns text language sql volatile as $$select 'a'::text$$");
    const sql = 'select pick2() as v';
    expect((await runOnce(sql, good())).outcome).toBe('ok'); // described: the next run goes in one write
    // Writes.
    await db.admin("create or replace function pick2() returns text language sql volatile as $$insert into written values (7) returning 'w'$$");
    expect((await runOnce(sql, broken())).outcome).not.toBe('ok');
    expect(await db.admin('select count(*)::int as n from written')).toEqual([{ n: 0 }]);
    // A session setting and a notification, which a read-only transaction allows but its rollback undoes.
    const { default: postgres } = await import('postgres');
    const listener = postgres({ host: db.config.host, port: db.config.port, database: db.config.database, username: db.config.username, max: 1, onnotice: () => undefined });
    const heard: string[] = [];
    try {
      await listener.listen('herald_t_one_write', (payload) => { heard.push(payload); });
      await db.admin("create or replace function pick2() returns text language sql volatile as $$select set_config('work_mem', '7777kB', false) || pg_notify('herald_t_one_write', 'leaked')::text$$");
      expect((await runOnce(sql, broken())).outcome).not.toBe('ok');
      await db.admin("select pg_notify('herald_t_one_write', 'marker')");
      await until(() => heard.includes('marker'), 'the marker notification').catch(() => undefined);
      expect(heard).toEqual(['marker']);
    } finally {
      await listener.end();
    }
    const after = await runOnce("select current_setting('work_mem') as w", good());
    expect(after.outcome).toBe('ok');
    expect(after.rows).not.toEqual([['7777kB']]);
    // The connection is clean: no transaction left open, and the next run reads.
    await db.admin("create or replace function pick2() returns text language sql volatile as $$select 'a'::text$$");
    expect(await runOnce(sql, good())).toEqual({ outcome: 'ok', rows: [['a']] });
  });

  test('a stop while what was sent behind it waits for a lock ends the run before the lock is let go', async () => {
    await db.admin('create table held (n int)');
    await db.admin('insert into held values (1)');
    const sql = 'select n from held';
    expect((await runOnce(sql, good())).outcome).toBe('ok');
    await whileLocked('held', async (released) => {
      // Without a transaction its Describe waits for the lock too, as the ROLLBACK behind it would
      // (it did before the one write as well); a stop cancels it, then the COPY once it runs.
      const stop = new AbortController();
      setTimeout(() => stop.abort(new Error('stopped while waiting')), 300);
      const run = await runOnce(sql, broken(), stop.signal);
      expect(run.outcome).toBe('42601'); // BEGIN's query did not parse
      expect(released()).toBe(false);
    });
    expect(await runOnce(sql, good())).toEqual({ outcome: 'ok', rows: [[1]] });
  });
});

test('a remembered statement stopped while its Describe waits for a lock stops before the lock is let go', async () => {
  await db.admin('create table guarded (n int)');
  await db.admin('insert into guarded values (1)');
  const sql = 'select n from guarded';
  expect(await outcome(session, sql)).toBe('ok');
  // Another session holds the table: the Describe (and the COPY behind it) wait for its lock.
  await whileLocked('guarded', async (released) => {
    await stoppedRun(sql, 'stopped while waiting', 200);
    expect(released()).toBe(false); // it did not wait for the lock
  });
  expect((await counted(sql)).rows).toEqual([[1]]);
  expect(await db.admin("select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'")).toEqual([{ n: 0 }]);
});
