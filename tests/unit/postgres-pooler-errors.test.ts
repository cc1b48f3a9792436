/**
 * The postgres connector and PgBouncer: its refusals, which its own words do not explain, read
 * by the connector's error dialect as what they mean for Herald and what to change; and what the
 * connector sends at start-up and in each transaction so that a pooler in transaction mode works.
 */
import { sqlErrors } from '../../src/plugins/shared/sql-errors.js';
import { postgresErrors } from '../../src/plugins/postgres/errors.js';
import { sessionParameters, transactionSettings } from '../../src/plugins/postgres/client.js';

const errors = sqlErrors(postgresErrors);
const pgbouncer = (message: string) => Object.assign(new Error(message), { code: '08P01', severity: 'FATAL' });

test('a start-up parameter PgBouncer does not pass on: the connection test names the pooler and the fix', () => {
  const err = errors.connectError(pgbouncer('unsupported startup parameter: search_path'), 'db:6432');
  expect(err).toMatchObject({ code: 'connection.unreachable' });
  expect(err.message).toBe('Cannot reach the database at db:6432: unsupported startup parameter: search_path: the server is a pooler (PgBouncer) that passes on only some start-up parameters; remove the option behind it from the connection, or list it in ignore_startup_parameters in pgbouncer.ini');
});

test('statement pooling: a run says to use transaction pooling', () => {
  const err = errors.statementError(pgbouncer('transaction blocks not allowed in statement pooling mode'));
  expect(err).toMatchObject({ code: 'query.failed' });
  expect(err.message).toMatch(/PgBouncer in statement pooling.*pool_mode = transaction/);
});

test('other server errors keep their own words', () => {
  const err = errors.connectError(Object.assign(new Error('password authentication failed for user "x"'), { code: '28P01', severity: 'FATAL' }), 'db:5432');
  expect(err).toMatchObject({ code: 'connection.auth_failed' });
  expect(err.message).not.toMatch(/PgBouncer/);
});

test('the settings each read-only transaction starts with: the value formats, and a search_path only as checked', () => {
  const config = (options: Record<string, unknown>) => ({ host: 'db', port: 6432, database: 'd', username: 'u', password: null, sslMode: 'disable', sslCa: null, options }) as never;
  expect(transactionSettings(config({}))).toBe("set local DateStyle = 'ISO, YMD'; set local IntervalStyle = 'iso_8601'; set local TimeZone = 'UTC'; set local bytea_output = 'hex'; set local extra_float_digits = 1");
  expect(transactionSettings(config({ search_path: 'sales, "Public Data"' }))).toMatch(/; set local search_path to sales, "Public Data"$/);
  expect(() => transactionSettings(config({ search_path: 'public; set role postgres' }))).toThrow('options.search_path');
  // Only what PgBouncer passes on goes into the startup packet.
  expect(Object.keys(sessionParameters(config({ search_path: 'sales' }))).sort()).toEqual(['DateStyle', 'TimeZone', 'application_name', 'client_encoding']);
});
