/**
 * Driver errors turned into the catalogue's codes. Messages carry the server's words (never the
 * password: neither the server nor postgres.js puts it in a message) and the SQLSTATE.
 */
import { DomainError } from '../../core/errors.js';
import { NETWORK_ERROR_REASONS } from '../shared/network-errors.js';

interface PgError {
  code?: unknown;
  message?: unknown;
  hint?: unknown;
  position?: unknown;
  severity?: unknown;
}

const AUTH_STATES = new Set(['28P01', '28000', '3D000', '42501']);
const NETWORK_CODES: Record<string, string> = {
  ...NETWORK_ERROR_REASONS,
  ETIMEDOUT: 'the connection timed out',
  CONNECT_TIMEOUT: 'no answer within the connect timeout',
  CONNECTION_CLOSED: 'the server closed the connection',
  CONNECTION_ENDED: 'the connection was closed',
  CONNECTION_DESTROYED: 'the connection was closed',
};

function codeOf(err: unknown): string | undefined {
  const code = (err as PgError | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(err: unknown): string {
  const m = (err as PgError | null)?.message;
  return typeof m === 'string' ? m : String(err);
}

/** True for a server error (it has a five-character SQLSTATE). */
export function isServerError(err: unknown): boolean {
  const code = codeOf(err);
  return code !== undefined && /^[0-9A-Z]{5}$/.test(code) && typeof (err as PgError).severity === 'string';
}

export function sqlState(err: unknown): string | undefined {
  return isServerError(err) ? codeOf(err) : undefined;
}

function describeServerError(err: unknown): string {
  const e = err as PgError;
  const parts = [`SQLSTATE ${String(e.code)}`];
  if (typeof e.position === 'string' && e.position) parts.push(`at character ${e.position}`);
  const hint = typeof e.hint === 'string' && e.hint ? ` Hint: ${e.hint}` : '';
  return `${messageOf(err)} (${parts.join(', ')})${hint}`;
}

/** An error while connecting: auth_failed or unreachable. */
export function connectError(err: unknown, where: string): DomainError {
  if (err instanceof DomainError) return err;
  const code = codeOf(err);
  if (isServerError(err)) {
    if (AUTH_STATES.has(code!)) return new DomainError('connection.auth_failed', `The server at ${where} refused the login: ${describeServerError(err)}`);
    return new DomainError('connection.unreachable', `The server at ${where} refused the connection: ${describeServerError(err)}`);
  }
  const known = code ? NETWORK_CODES[code] : undefined;
  const tls = /ssl|tls|certificate|self[- ]signed/i.test(messageOf(err)) || (code?.startsWith('ERR_TLS') ?? false) || (code?.includes('CERT') ?? false);
  const why = tls ? `TLS failed: ${messageOf(err)}` : known ?? messageOf(err);
  return new DomainError('connection.unreachable', `Cannot reach the database at ${where}: ${why}`);
}

/** An error of a running statement. Connection-level failures are reported as query.failed. */
export function statementError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  const state = sqlState(err);
  if (state === '25006') return new DomainError('query.not_read_only', `Herald runs read-only statements only: ${describeServerError(err)}`);
  if (state === '57014') return new DomainError('query.timeout', `The statement ran longer than its time limit and was cancelled on the server (${describeServerError(err)})`);
  if (state === '25P03') return new DomainError('query.timeout', 'The read-only transaction stayed idle longer than its time limit');
  if (state) return new DomainError('query.failed', describeServerError(err));
  const code = codeOf(err);
  const known = code ? NETWORK_CODES[code] : undefined;
  return new DomainError('query.failed', `The statement failed: ${known ?? messageOf(err)}`);
}
