/**
 * Results lose nothing (openapi.yaml's ResultValue): on a real PostgreSQL and a real MariaDB every
 * value round-trips into a CellValue: decimals, big integers, dates, times and timestamps (ISO
 * 8601), intervals, JSON, UUIDs and binary (base64) as strings; NULLs in every column.
 */
import { mysqlConnector } from '../../src/plugins/mysql/index.js';
import { postgresConnector } from '../../src/plugins/postgres/index.js';
import type { ConnectorSession } from '../../src/domain/plugins/connector.js';
import { collect, createMysqlScratch, createPgScratch, noSignal, type ScratchDb } from '../support/connector-dbs.js';

let pg: ScratchDb;
let my: ScratchDb;
let pgSession: ConnectorSession;
let mySession: ConnectorSession;

beforeAll(async () => {
  [pg, my] = await Promise.all([createPgScratch(), createMysqlScratch()]);
  pgSession = postgresConnector.open(pg.config, { poolSize: 2, connectTimeoutMs: 5000 });
  mySession = mysqlConnector.open(my.config, { poolSize: 2, connectTimeoutMs: 5000 });
});

afterAll(async () => {
  await Promise.all([pgSession?.close(), mySession?.close()]);
  await Promise.all([pg?.drop(), my?.drop()]);
});

async function readAll(session: ConnectorSession, sql: string) {
  const stream = await session.execute({ sql, params: [] }, { signal: noSignal(), timeoutMs: 10_000, batchSize: 100 });
  return { columns: stream.columns, rows: (await collect(stream)).rows };
}

const PG_COLUMNS: Array<[string, string, string, unknown]> = [
  // name, type, SQL literal, expected CellValue
  ['dec30', 'numeric(30,10)', "'12345678901234567890.1234567890'", '12345678901234567890.1234567890'],
  ['num_nan', 'numeric', "'NaN'", 'NaN'],
  ['num_inf', 'numeric', "'Infinity'", 'Infinity'],
  ['num_neg_inf', 'numeric', "'-Infinity'", '-Infinity'],
  ['f8', 'float8', '1.5', 1.5],
  ['f8_nan', 'float8', "'NaN'", 'NaN'],
  ['f8_inf', 'float8', "'Infinity'", 'Infinity'],
  ['f8_neg_inf', 'float8', "'-Infinity'", '-Infinity'],
  ['f4', 'float4', '1.1', 1.1],
  ['f4_inf', 'float4', "'-Infinity'", '-Infinity'],
  ['big_small', 'int8', '42', 42],
  ['big_max_safe', 'int8', '9007199254740991', 9007199254740991],
  ['big_beyond', 'int8', '9007199254740993', '9007199254740993'],
  ['big_min', 'int8', '-9223372036854775808', '-9223372036854775808'],
  ['i4', 'int4', '2147483647', 2147483647],
  ['i2', 'int2', '-32768', -32768],
  ['b', 'bool', 'true', true],
  ['d', 'date', "'2024-02-29'", '2024-02-29'],
  ['d_bc', 'date', "'0044-03-15 BC'", '-0043-03-15'],
  ['d_inf', 'date', "'infinity'", 'Infinity'],
  ['t', 'time', "'13:14:15.123456'", '13:14:15.123456'],
  ['ttz', 'timetz', "'13:14:15+02'", '13:14:15+02:00'],
  ['ts', 'timestamp', "'2024-02-29 13:14:15.123456'", '2024-02-29T13:14:15.123456'],
  ['tstz', 'timestamptz', "'2024-02-29 13:14:15.123456+02'", '2024-02-29T11:14:15.123456Z'],
  ['tstz_inf', 'timestamptz', "'-infinity'", '-Infinity'],
  ['iv', 'interval', "'1 year 2 months 3 days 04:05:06.5'", 'P1Y2M3DT4H5M6.5S'],
  ['j', 'json', `'{"b": 1, "a": [1, 2.50]}'`, '{"b": 1, "a": [1, 2.50]}'],
  ['jb', 'jsonb', `'{"b": 1, "a": [1, 2.50]}'`, '{"a": [1, 2.50], "b": 1}'],
  ['u', 'uuid', "'0190d3a4-8f5e-7c3b-9a2d-1e2f3a4b5c6d'", '0190d3a4-8f5e-7c3b-9a2d-1e2f3a4b5c6d'],
  ['by', 'bytea', "'\\x00ff10'", 'AP8Q'],
  ['tx', 'text', "'héllo ✓'", 'héllo ✓'],
  ['vc', 'varchar(20)', "'plain'", 'plain'],
  ['arr', 'int4[]', "'{1,2,3}'", '{1,2,3}'],
];

test('PostgreSQL: every type round-trips without loss, with its type name, and NULL in every column', async () => {
  await pg.admin(`create table v (${PG_COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')})`);
  await pg.admin(`insert into v values (${PG_COLUMNS.map(([, , lit]) => lit).join(', ')})`);
  await pg.admin(`insert into v default values`);
  const { columns, rows } = await readAll(pgSession, 'select * from v order by i4 nulls last');
  expect(columns.map((c) => c.name)).toEqual(PG_COLUMNS.map(([n]) => n));
  expect(columns.map((c) => c.type)).toEqual(PG_COLUMNS.map(([, t]) => t.replace(/\(.*\)/, '')));
  expect(rows[0]).toEqual(PG_COLUMNS.map(([, , , v]) => v));
  expect(rows[1]).toEqual(PG_COLUMNS.map(() => null));
});

test('PostgreSQL: duplicate column names keep their order, enums have their own name, a domain reads as its base type', async () => {
  await pg.admin("create type mood as enum ('happy', 'sad')");
  await pg.admin('create domain price as numeric(12,2)');
  const { columns, rows } = await readAll(pgSession, "select 1 as x, 2 as x, 'happy'::mood as m, 12.5::price as p, 7::bigint as big");
  expect(columns).toEqual([
    { name: 'x', type: 'int4' }, { name: 'x', type: 'int4' }, { name: 'm', type: 'mood' },
    { name: 'p', type: 'numeric' }, { name: 'big', type: 'int8' },
  ]);
  expect(rows).toEqual([[1, 2, 'happy', '12.50', 7]]);
});

const MY_COLUMNS: Array<[string, string, string, unknown, string]> = [
  // name, column type, SQL literal, expected CellValue, reported type name
  ['dec30', 'DECIMAL(30,10)', "'12345678901234567890.1234567890'", '12345678901234567890.1234567890', 'decimal'],
  ['dec65', 'DECIMAL(65,30)', "'12345678901234567890123456789012345.123456789012345678901234567891'", '12345678901234567890123456789012345.123456789012345678901234567891', 'decimal'],
  ['f8', 'DOUBLE', '1.5', 1.5, 'double'],
  ['f4', 'FLOAT', '1.1', 1.1, 'float'],
  ['big_small', 'BIGINT', '42', 42, 'bigint'],
  ['big_beyond', 'BIGINT', '9007199254740993', '9007199254740993', 'bigint'],
  ['big_min', 'BIGINT', '-9223372036854775808', '-9223372036854775808', 'bigint'],
  ['ubig', 'BIGINT UNSIGNED', '18446744073709551615', '18446744073709551615', 'bigint unsigned'],
  ['i4', 'INT', '2147483647', 2147483647, 'int'],
  ['i2', 'SMALLINT', '-32768', -32768, 'smallint'],
  ['flag', 'BOOLEAN', 'TRUE', 1, 'tinyint'],
  ['bits', 'BIT(3)', "b'101'", 5, 'bit'],
  ['y', 'YEAR', '2024', 2024, 'year'],
  ['d', 'DATE', "'2024-02-29'", '2024-02-29', 'date'],
  ['t', 'TIME(6)', "'13:14:15.123456'", '13:14:15.123456', 'time'],
  ['dt', 'DATETIME(6)', "'2024-02-29 13:14:15.123456'", '2024-02-29T13:14:15.123456', 'datetime'],
  ['ts', 'TIMESTAMP(6) NULL', "'2024-02-29 13:14:15.123456'", '2024-02-29T13:14:15.123456Z', 'timestamp'],
  ['j', 'JSON', `'{"b": 1, "a": [1, 2.50]}'`, '{"b": 1, "a": [1, 2.50]}', 'json'],
  ['u', 'UUID', "'0190d3a4-8f5e-7c3b-9a2d-1e2f3a4b5c6d'", '0190d3a4-8f5e-7c3b-9a2d-1e2f3a4b5c6d', 'uuid'],
  ['bl', 'BLOB', "x'00ff10'", 'AP8Q', 'blob'],
  ['vb', 'VARBINARY(8)', "x'00ff10'", 'AP8Q', 'varbinary'],
  ['tx', 'TEXT', "'héllo ✓'", 'héllo ✓', 'text'],
  ['vc', 'VARCHAR(20)', "'plain'", 'plain', 'varchar'],
  ['en', "ENUM('a','b')", "'b'", 'b', 'enum'],
];

test('MariaDB: every type round-trips without loss, with its type name, and NULL in every column', async () => {
  await my.admin(`CREATE TABLE v (${MY_COLUMNS.map(([n, t]) => `${n} ${t}`).join(', ')}) DEFAULT CHARSET utf8mb4`);
  await my.admin("SET time_zone = '+00:00'");
  await my.admin(`INSERT INTO v VALUES (${MY_COLUMNS.map(([, , lit]) => lit).join(', ')})`);
  await my.admin(`INSERT INTO v () VALUES ()`);
  const { columns, rows } = await readAll(mySession, 'SELECT * FROM v ORDER BY i4 IS NULL');
  expect(columns.map((c) => c.name)).toEqual(MY_COLUMNS.map(([n]) => n));
  expect(columns.map((c) => c.type)).toEqual(MY_COLUMNS.map(([, , , , t]) => t));
  expect(rows[0]).toEqual(MY_COLUMNS.map(([, , , v]) => v));
  expect(rows[1]).toEqual(MY_COLUMNS.map(() => null));
});

test('MariaDB: bound parameters of every kind arrive as values, never as text spliced into the SQL', async () => {
  const stream = await mySession.execute(
    { sql: 'SELECT ? AS s, ? AS n, ? AS b, ? AS z, CONCAT(?, \'\') AS q', params: ["it's", 2.5, true, null, "'; DROP TABLE v; --"] },
    { signal: noSignal(), timeoutMs: 5000, batchSize: 10 },
  );
  expect((await collect(stream)).rows).toEqual([["it's", 2.5, 1, null, "'; DROP TABLE v; --"]]);
});
