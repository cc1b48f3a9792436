/**
 * mysql2 errors read for the shared error mapping (src/plugins/shared/sql-errors.ts): a server
 * error has an error number and the server's message (a server never echoes the password; mysql2
 * says "using password: YES" at most); anything else is mysql2's or the socket's.
 */
import { DomainError } from '../../core/errors.js';
import type { SqlErrorDialect } from '../shared/sql-errors.js';

interface MysqlError {
  code?: unknown;
  errno?: unknown;
  sqlState?: unknown;
  sqlMessage?: unknown;
  message?: unknown;
}

/** Server errors at login: wrong password, unknown user or database, host not allowed, … */
const AUTH_ERRNOS = new Set([1044, 1045, 1049, 1130, 1251, 1698, 1862, 2059, 4150]);
const ER_READ_ONLY_TRANSACTION = 1792;
const ER_MARIADB_STATEMENT_TIMEOUT = 1969;
const ER_MYSQL_QUERY_TIMEOUT = 3024;
/** No such function (RELEASE_ALL_LOCKS before MySQL 5.7). */
export const ER_SP_DOES_NOT_EXIST = 1305;

export function errnoOf(err: unknown): number | undefined {
  const n = (err as MysqlError | null)?.errno;
  return typeof n === 'number' ? n : undefined;
}

export function codeOf(err: unknown): string | undefined {
  const c = (err as MysqlError | null)?.code;
  return typeof c === 'string' ? c : undefined;
}

function isServerError(err: unknown): boolean {
  const e = err as MysqlError | null;
  return typeof e?.errno === 'number' && typeof e.sqlMessage === 'string';
}

function messageOf(err: unknown): string {
  const e = err as MysqlError | null;
  if (typeof e?.sqlMessage === 'string') return e.sqlMessage;
  return typeof e?.message === 'string' ? e.message : String(err);
}

function describeServerError(err: unknown): string {
  const e = err as MysqlError;
  const state = typeof e.sqlState === 'string' && e.sqlState ? `, SQLSTATE ${e.sqlState}` : '';
  return `${messageOf(err)} (error ${String(e.errno)}${state})`;
}

export const mysqlErrors: SqlErrorDialect = {
  read(err) {
    if (isServerError(err)) return { server: true, description: describeServerError(err), loginRefused: AUTH_ERRNOS.has(errnoOf(err)!) };
    return { server: false, code: codeOf(err), message: messageOf(err) };
  },
  networkReasons: {
    ETIMEDOUT: 'no answer within the connect timeout',
    PROTOCOL_CONNECTION_LOST: 'the server closed the connection',
    HANDSHAKE_NO_SSL_SUPPORT: 'the server does not offer TLS (choose ssl_mode prefer or disable)',
  },
  isTlsFailure: ({ message }, known) => !known && /ssl|tls|certificate|self[- ]signed/i.test(message),
  statementRefusal(err, description) {
    const errno = errnoOf(err);
    if (errno === ER_READ_ONLY_TRANSACTION) return new DomainError('query.not_read_only', `Herald runs read-only statements only: ${description}`);
    if (errno === ER_MARIADB_STATEMENT_TIMEOUT || errno === ER_MYSQL_QUERY_TIMEOUT) {
      return new DomainError('query.timeout', `The statement ran longer than its time limit and was stopped on the server (${description})`);
    }
    return undefined;
  },
};
