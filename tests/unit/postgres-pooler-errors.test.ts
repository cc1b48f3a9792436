/**
 * PgBouncer's refusals, which its own words do not explain, read by the postgres connector's
 * error dialect as what they mean for Herald and what to change.
 */
import { sqlErrors } from '../../src/plugins/shared/sql-errors.js';
import { postgresErrors } from '../../src/plugins/postgres/errors.js';

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
