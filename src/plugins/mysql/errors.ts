/**
 * mysql2 errors turned into the catalogue's codes. Messages carry the server's words and error
 * number (a server never echoes the password; mysql2 says "using password: YES" at most).
 */
import { DomainError } from '../../core/errors.js';
import { NETWORK_ERROR_REASONS } from '../shared/network-errors.js';

interface MysqlError {
  code?: unknown;
  errno?: unknown;
  sqlState?: unknown;
  sqlMessage?: unknown;
  message?: unknown;
}

/** Server errors at login: wrong password, unknown user or database, host not allowed, … */
const AUTH_ERRNOS = new Set([1044, 1045, 1049, 1130, 1251, 1698, 1862, 2059, 4150]);
export const ER_READ_ONLY_TRANSACTION = 1792;
export const ER_QUERY_INTERRUPTED = 1317;
export const ER_MARIADB_STATEMENT_TIMEOUT = 1969;
export const ER_MYSQL_QUERY_TIMEOUT = 3024;

const NETWORK_CODES: Record<string, string> = {
  ...NETWORK_ERROR_REASONS,
  ETIMEDOUT: 'no answer within the connect timeout',
  PROTOCOL_CONNECTION_LOST: 'the server closed the connection',
  HANDSHAKE_NO_SSL_SUPPORT: 'the server does not offer TLS (choose ssl_mode prefer or disable)',
};

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

export function connectError(err: unknown, where: string): DomainError {
  if (err instanceof DomainError) return err;
  if (isServerError(err)) {
    if (AUTH_ERRNOS.has(errnoOf(err)!)) return new DomainError('connection.auth_failed', `The server at ${where} refused the login: ${describeServerError(err)}`);
    return new DomainError('connection.unreachable', `The server at ${where} refused the connection: ${describeServerError(err)}`);
  }
  const code = codeOf(err);
  const known = code ? NETWORK_CODES[code] : undefined;
  const tls = !known && /ssl|tls|certificate|self[- ]signed/i.test(messageOf(err));
  const why = tls ? `TLS failed: ${messageOf(err)}` : known ?? messageOf(err);
  return new DomainError('connection.unreachable', `Cannot reach the database at ${where}: ${why}`);
}

export function statementError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  const errno = errnoOf(err);
  if (isServerError(err)) {
    if (errno === ER_READ_ONLY_TRANSACTION) return new DomainError('query.not_read_only', `Herald runs read-only statements only: ${describeServerError(err)}`);
    if (errno === ER_MARIADB_STATEMENT_TIMEOUT || errno === ER_MYSQL_QUERY_TIMEOUT) {
      return new DomainError('query.timeout', `The statement ran longer than its time limit and was stopped on the server (${describeServerError(err)})`);
    }
    return new DomainError('query.failed', describeServerError(err));
  }
  const code = codeOf(err);
  const known = code ? NETWORK_CODES[code] : undefined;
  return new DomainError('query.failed', `The statement failed: ${known ?? messageOf(err)}`);
}
