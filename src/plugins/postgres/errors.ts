/**
 * postgres.js errors read for the shared error mapping (src/plugins/shared/sql-errors.ts): a server
 * error has a five-character SQLSTATE and a severity; anything else is postgres.js's or the
 * socket's.
 */
import { DomainError } from '../../core/errors.js';
import type { SqlErrorDialect } from '../shared/sql-errors.js';

interface PgError {
  code?: unknown;
  message?: unknown;
  hint?: unknown;
  position?: unknown;
  severity?: unknown;
}

/** invalid_password, invalid_authorization_specification, invalid_catalog_name, insufficient_privilege. */
const AUTH_STATES = new Set(['28P01', '28000', '3D000', '42501']);

function codeOf(err: unknown): string | undefined {
  const code = (err as PgError | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(err: unknown): string {
  const m = (err as PgError | null)?.message;
  return typeof m === 'string' ? m : String(err);
}

function isServerError(err: unknown): boolean {
  const code = codeOf(err);
  return code !== undefined && /^[0-9A-Z]{5}$/.test(code) && typeof (err as PgError).severity === 'string';
}

function describeServerError(err: unknown): string {
  const e = err as PgError;
  const parts = [`SQLSTATE ${String(e.code)}`];
  if (typeof e.position === 'string' && e.position) parts.push(`at character ${e.position}`);
  const hint = typeof e.hint === 'string' && e.hint ? ` Hint: ${e.hint}` : '';
  return `${messageOf(err)} (${parts.join(', ')})${hint}`;
}

/**
 * What PgBouncer answers when its pooling cannot carry Herald's way of running a statement, and
 * what to do about it (its own words alone do not say that the server is a pooler).
 */
const POOLER_REFUSALS: Array<[RegExp, string]> = [
  [/statement pooling mode/i, 'the server is PgBouncer in statement pooling, which refuses the read-only transaction every Herald run is made of; give this database pool_mode = transaction (or session) in pgbouncer.ini'],
  [/unsupported startup parameter/i, 'the server is a pooler (PgBouncer) that passes on only some start-up parameters; remove the option behind it from the connection, or list it in ignore_startup_parameters in pgbouncer.ini'],
];

function poolerRefusal(err: unknown): string | undefined {
  const message = messageOf(err);
  const found = POOLER_REFUSALS.find(([pattern]) => pattern.test(message));
  return found ? `${message}: ${found[1]}` : undefined;
}

export const postgresErrors: SqlErrorDialect = {
  read(err) {
    const pooler = poolerRefusal(err);
    if (pooler) return { server: false, code: undefined, message: pooler };
    if (isServerError(err)) return { server: true, description: describeServerError(err), loginRefused: AUTH_STATES.has(codeOf(err)!) };
    return { server: false, code: codeOf(err), message: messageOf(err) };
  },
  networkReasons: {
    ETIMEDOUT: 'the connection timed out',
    CONNECT_TIMEOUT: 'no answer within the connect timeout',
    CONNECTION_CLOSED: 'the server closed the connection',
    CONNECTION_ENDED: 'the connection was closed',
    CONNECTION_DESTROYED: 'the connection was closed',
  },
  isTlsFailure: ({ code, message }) => /ssl|tls|certificate|self[- ]signed/i.test(message)
    || (code?.startsWith('ERR_TLS') ?? false) || (code?.includes('CERT') ?? false),
  statementRefusal(err, description) {
    switch (codeOf(err)) {
      case '25006': return new DomainError('query.not_read_only', `Herald runs read-only statements only: ${description}`);
      case '57014': return new DomainError('query.timeout', `The statement ran longer than its time limit and was cancelled on the server (${description})`);
      case '25P03': return new DomainError('query.timeout', 'The read-only transaction stayed idle longer than its time limit');
      default: return undefined;
    }
  },
};
