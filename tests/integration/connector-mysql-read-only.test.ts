/**
 * The mysql connector runs read-only statements only, enforced by the service on a real
 * MariaDB: every kind of write fails with query.not_read_only or query.failed and leaves the data
 * as it was; one statement at a time; LOAD DATA LOCAL INFILE never reads a local file.
 */
import { mysqlConnector } from '../../src/plugins/mysql/index.js';
import { createSingleConnection } from '../../src/plugins/mysql/client.js';
import type { ConnectorSession } from '../../src/domain/plugins/connector.js';
import {
  collect, createMysqlScratch, mysqlAdmin, mysqlRun, noSignal, outcome, type ScratchDb,
} from '../support/connector-dbs.js';

let db: ScratchDb;
let session: ConnectorSession;

beforeAll(async () => {
  db = await createMysqlScratch();
  await db.admin('CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL)');
  await db.admin("INSERT INTO items VALUES (1, 'one'), (2, 'two')");
  await db.admin('CREATE SEQUENCE item_ids');
  await db.admin(`CREATE FUNCTION add_item() RETURNS INT MODIFIES SQL DATA
    BEGIN INSERT INTO items VALUES (99, 'written by a function'); RETURN 99; END`);
  await db.admin("CREATE PROCEDURE add_item_proc() MODIFIES SQL DATA INSERT INTO items VALUES (98, 'written by a procedure')");
  // GET_LOCK called by a function of the database: the statement's text does not name it
  // (query.forbidden_function cannot see it), the check after the rows does.
  await db.admin('CREATE FUNCTION take_lock(name VARCHAR(64)) RETURNS INT NO SQL RETURN GET_LOCK(name, 0)');
  session = mysqlConnector.open(db.config, { poolSize: 2, connectTimeoutMs: 5000 });
});

afterAll(async () => {
  await session?.close();
  await db?.drop();
});

async function unchanged(): Promise<void> {
  expect(await db.admin('SELECT id, name FROM items ORDER BY id')).toEqual([{ id: 1, name: 'one' }, { id: 2, name: 'two' }]);
  expect(await db.admin(`SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN ('made_by_ddl', 'items_copy')`, [db.name])).toEqual([{ n: 0 }]);
  expect(await db.admin(`SELECT COUNT(*) AS n FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'items'`, [db.name])).toEqual([{ n: 2 }]);
  expect(await db.admin('SELECT next_not_cached_value AS v FROM item_ids')).toEqual([{ v: 1 }]);
}

test('a plain SELECT reads, with bound parameters', async () => {
  const stream = await session.execute({ sql: 'SELECT id, name FROM items WHERE id = ?', params: [2] }, { signal: noSignal(), timeoutMs: 5000, batchSize: 10 });
  expect(stream.columns).toEqual([{ name: 'id', type: 'int' }, { name: 'name', type: 'varchar' }]);
  expect((await collect(stream)).rows).toEqual([[2, 'two']]);
});

test.each([
  ['INSERT', "INSERT INTO items VALUES (3, 'three')"],
  ['INSERT … RETURNING', "INSERT INTO items VALUES (3, 'three') RETURNING id"],
  ['REPLACE', "REPLACE INTO items VALUES (1, 'replaced')"],
  ['UPDATE', "UPDATE items SET name = 'changed'"],
  ['DELETE', 'DELETE FROM items'],
  ['DELETE … RETURNING', 'DELETE FROM items RETURNING id'],
  ['CREATE TABLE', 'CREATE TABLE made_by_ddl (a INT)'],
  ['CREATE TABLE … SELECT', 'CREATE TABLE items_copy SELECT * FROM items'],
  ['CREATE TEMPORARY TABLE', 'CREATE TEMPORARY TABLE made_by_ddl (a INT)'],
  ['DROP TABLE', 'DROP TABLE items'],
  ['ALTER TABLE', 'ALTER TABLE items ADD COLUMN extra INT'],
  ['TRUNCATE', 'TRUNCATE items'],
  ['RENAME TABLE', 'RENAME TABLE items TO items_copy'],
  ['OPTIMIZE TABLE', 'OPTIMIZE TABLE items'],
  ['ANALYZE TABLE', 'ANALYZE TABLE items'],
  ['REPAIR TABLE', 'REPAIR TABLE items'],
  ['SELECT … FOR UPDATE', 'SELECT * FROM items FOR UPDATE'],
  ['SELECT … INTO OUTFILE', "SELECT * FROM items INTO OUTFILE '/tmp/herald_t_conn_outfile.txt'"],
  ['SELECT … INTO @var', 'SELECT name FROM items WHERE id = 1 INTO @n'],
  ['NEXTVAL of a sequence', 'SELECT NEXTVAL(item_ids)'],
  ['a writing stored function', 'SELECT add_item()'],
  ['a writing stored procedure', 'CALL add_item_proc()'],
  ['GET_LOCK inside a function', "SELECT take_lock('herald')"],
  ['SET', 'SET SESSION sql_mode = ""'],
  ['SET TRANSACTION READ WRITE', 'SET SESSION TRANSACTION READ WRITE'],
  ['COMMIT', 'COMMIT'],
  ['LOCK TABLES', 'LOCK TABLES items WRITE'],
  ['HANDLER', 'HANDLER items OPEN'],
  ['DO', 'DO add_item()'],
  ['LOAD DATA LOCAL INFILE', "LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE items"],
  ['LOAD DATA INFILE', "LOAD DATA INFILE '/etc/hostname' INTO TABLE items"],
  ['an executable comment', "/*!50000 INSERT INTO items VALUES (4, 'four') */"],
  ['a comment before a write', "/* hello */ INSERT INTO items VALUES (4, 'four')"],
])('%s fails and changes nothing', async (_name, sql) => {
  expect(['query.not_read_only', 'query.failed']).toContain(await outcome(session, sql));
  await unchanged();
});

test.each([
  ['; COMMIT; INSERT', "SELECT 1; COMMIT; INSERT INTO items VALUES (7, 'seven')"],
  ['; INSERT', "SELECT 1; INSERT INTO items VALUES (7, 'seven')"],
  ['; DROP TABLE', 'SELECT 1; DROP TABLE items'],
])('a second statement after a semicolon (%s) fails and changes nothing', async (_name, sql) => {
  expect(await outcome(session, sql)).toBe('query.failed');
  await unchanged();
});

test('a write refused by the read-only transaction itself is query.not_read_only (error 1792)', async () => {
  await expect(session.execute({ sql: 'SELECT add_item()', params: [] }, { signal: noSignal(), timeoutMs: 5000, batchSize: 10 }))
    .rejects.toMatchObject({ code: 'query.not_read_only', message: expect.stringContaining('1792') });
  await unchanged();
});

test('named locks never outlive the statement', async () => {
  expect(await outcome(session, "SELECT take_lock('herald_t_lock')")).toBe('query.not_read_only');
  const other = mysqlAdmin(db.name);
  try {
    expect(await mysqlRun(other, "SELECT IS_FREE_LOCK('herald_t_lock') AS free")).toEqual([{ free: 1 }]);
  } finally {
    other.end();
  }
});

test("LOAD DATA LOCAL INFILE fails even on the connector's raw client, outside any transaction, and reads nothing", async () => {
  const conn = createSingleConnection(db.config, { poolSize: 1, connectTimeoutMs: 5000 }, false);
  try {
    const err = await mysqlRun(conn, "LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE items").then(() => null, (e: { errno?: number }) => e);
    // MariaDB 4166 / MySQL 3948: the client did not announce LOCAL_FILES (1148 on older servers).
    expect([4166, 3948, 1148]).toContain(err?.errno);
  } finally {
    conn.end();
  }
  await unchanged();
});
