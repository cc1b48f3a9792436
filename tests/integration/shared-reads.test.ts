/**
 * Requests asking for the same versions at once share one statement (src/infra/db/shared-reads.ts),
 * and none gets rows read before it asked: a call made while the same read is under way gets the
 * next read, which sees what was committed before the call.
 */
import postgres from 'postgres';
import { sharedReads, type ReadStatement } from '../../src/infra/db/shared-reads.js';
import { createPgScratch, type ScratchDb } from '../support/connector-dbs.js';

let pg: ScratchDb;
let sql: postgres.Sql;
let statements: string[];
let run: ReadStatement;

beforeAll(async () => {
  pg = await createPgScratch();
  await pg.admin('create table t (id int primary key, v int not null)');
  await pg.admin('insert into t values (1, 1), (2, 20)');
  sql = postgres({ host: pg.config.host, port: pg.config.port, database: pg.config.database, username: pg.config.username, max: 2, onnotice: () => undefined });
  // Both connections open (and the types fetched) before any test times a statement.
  await Promise.all([sql`select pg_sleep(0.05)`, sql`select pg_sleep(0.05)`]);
  run = <R>(text: string, params: readonly unknown[]) => {
    statements.push(`${text} ${JSON.stringify(params)}`);
    return sql.unsafe<R[]>(text, params as never[], { prepare: true });
  };
});

beforeEach(() => { statements = []; });

afterAll(async () => {
  await sql?.end();
  await pg?.drop();
});

/** Sleeps `ms` first, then reads: the statement's snapshot is taken when it starts, before the sleep. */
const SLOW = 'select pg_sleep($2::int / 1000.0) as slept, (select v from t where id = $1::int) as v';

/**
 * Until the store shows the slow statement sleeping, so its snapshot is taken. `state = 'active'`
 * alone is not enough: a backend is active from the statement's Bind, before the executor takes
 * its snapshot, and on a loaded machine a write committed in that gap was seen by the "first" read
 * (CI-like load, three jest workers, met it once).
 */
async function running(): Promise<void> {
  for (let i = 0; i < 500; i += 1) {
    const [row] = await pg.admin(`select count(*)::int as n from pg_stat_activity
      where state = 'active' and wait_event = 'PgSleep' and query like 'select pg_sleep($2%'`);
    if ((row as { n: number }).n > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the slow statement never ran');
}

it('gives calls made while a read is under way the next read, which sees a write committed before them', async () => {
  await pg.admin('update t set v = 1 where id = 1');
  const read = sharedReads(run);
  const first = read<{ v: number }>(SLOW, [1, 1500]);
  await running();
  expect(read.underWay).toBe(1);
  // Committed after the first read started and before the next calls: they must see it.
  await pg.admin('update t set v = 2 where id = 1');
  const second = read<{ v: number }>(SLOW, [1, 1500]);
  const third = read<{ v: number }>(SLOW, [1, 1500]);
  const [a, b, c] = await Promise.all([first, second, third]);
  expect(a[0]!.v).toBe(1);
  expect(b[0]!.v).toBe(2);
  expect(c).toBe(b);
  // Two statements for three calls: the first, and the one the two calls made meanwhile shared.
  expect(statements).toHaveLength(2);
  expect(read.underWay).toBe(0);
});

it('shares a read between calls made together, and only for the same statement and parameters', async () => {
  await pg.admin('update t set v = 2 where id = 1');
  const read = sharedReads(run);
  const calls = Array.from({ length: 50 }, (_, i) => read<{ v: number }>(SLOW, [i % 2 === 0 ? 1 : 2, 0]));
  const other = read<{ n: number }>('select $1::int as n', [7]);
  const rows = await Promise.all(calls);
  expect(rows.filter((r, i) => r[0]!.v !== (i % 2 === 0 ? 2 : 20))).toEqual([]);
  expect((await other)[0]!.n).toBe(7);
  // For each of the two parameters: the first call's statement, and one more that the other 24
  // calls share (they came while the first was under way); one for the other text.
  expect(statements).toHaveLength(5);
  expect(read.underWay).toBe(0);
});

it('hands a failed read to its callers, and the next calls read again', async () => {
  const read = sharedReads(run);
  const bad = 'select 1 / $1::int as x';
  const failing = [read(bad, [0]), read(bad, [0]), read(bad, [0])];
  for (const f of failing) await expect(f).rejects.toThrow(/division by zero/);
  // The first call's read, and the next one that the two calls made meanwhile shared: each failed.
  expect(statements).toHaveLength(2);
  const [row] = await read<{ x: number }>(bad, [1]);
  expect(row!.x).toBe(1);
  expect(read.underWay).toBe(0);
});

it('gives waiting calls the failure of their own read (one that throws at once too), and reads params it cannot key unshared', async () => {
  await pg.admin('update t set v = 2 where id = 1');
  let calls = 0;
  const read = sharedReads(<R>(text: string, params: readonly unknown[]) => {
    calls += 1;
    if (calls === 2) throw new Error('lane closed');
    return sql.unsafe<R[]>(text, params as never[], { prepare: true });
  });
  const first = read<{ v: number }>(SLOW, [1, 1000]);
  await running();
  // Comes while the first is under way: its own read (the second call of the lane) throws.
  const waiting = read<{ v: number }>(SLOW, [1, 1000]);
  expect((await first)[0]!.v).toBe(2);
  await expect(waiting).rejects.toThrow('lane closed');
  expect(calls).toBe(2);
  expect(read.underWay).toBe(0);
  // The next call reads again.
  expect((await read<{ v: number }>(SLOW, [1, 0]))[0]!.v).toBe(2);
  // A parameter JSON would not tell apart (NaN, undefined): never shared, each its own statement.
  statements = [];
  const plain = sharedReads(run);
  const odd = [plain('select $1::float8 as x', [Number.NaN]), plain('select $1::float8 as x', [Number.NaN])];
  expect(plain.underWay).toBe(0);
  await Promise.all(odd);
  expect(statements).toHaveLength(2);
});
