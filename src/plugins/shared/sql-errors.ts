/**
 * Driver errors of a SQL connector turned into the catalogue's codes: the frame every connector
 * shares (which code a failure to connect or a failing statement gets, and how its message reads),
 * filled in by the dialect (how its driver tells a server's answer from a socket's failure, which
 * server errors are a refused login, a write in a read-only transaction or a time limit).
 * Messages carry the server's words and its error code; never the password (no server or driver
 * puts it in a message).
 */
import { DomainError } from '../../core/errors.js';

/** Why a database could not be reached, by Node's socket error code: the part every connector shares. */
export const NETWORK_ERROR_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve (temporary DNS failure)',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ECONNRESET: 'the server closed the connection',
  EPIPE: 'the server closed the connection',
};

/** A driver error as the dialect reads it. */
export type DriverError =
  /** The server answered with an error: its words and code (e.g. "… (SQLSTATE 42P01, at character 8)"). */
  | { server: true; description: string; loginRefused: boolean }
  /** The driver or the socket failed: its code (ECONNREFUSED, CONNECTION_CLOSED, …) and message. */
  | { server: false; code: string | undefined; message: string };

export interface SqlErrorDialect {
  read(err: unknown): DriverError;
  /** The driver's own codes (added to, or replacing, NETWORK_ERROR_REASONS) and why each means no connection. */
  networkReasons: Readonly<Record<string, string>>;
  /** True when a failure to connect is TLS's; `known` says whether its code has a reason above. */
  isTlsFailure(err: { code: string | undefined; message: string }, known: boolean): boolean;
  /**
   * A server error of a running statement that the catalogue names (query.not_read_only,
   * query.timeout), or undefined for query.failed with the server's words.
   */
  statementRefusal(err: unknown, description: string): DomainError | undefined;
}

export interface SqlErrors {
  /** An error while connecting (or testing the connection): connection.auth_failed or connection.unreachable. */
  connectError(err: unknown, where: string): DomainError;
  /** An error of a running statement; connection-level failures are reported as query.failed. */
  statementError(err: unknown): DomainError;
}

/** query.not_read_only with the given message (a dialect's refusal of what a statement did). */
export function notReadOnly(message: string): DomainError {
  return new DomainError('query.not_read_only', message);
}

export function sqlErrors(dialect: SqlErrorDialect): SqlErrors {
  const reasons: Readonly<Record<string, string>> = { ...NETWORK_ERROR_REASONS, ...dialect.networkReasons };
  return {
    connectError(err, where) {
      if (err instanceof DomainError) return err;
      const e = dialect.read(err);
      if (e.server) {
        return e.loginRefused
          ? new DomainError('connection.auth_failed', `The server at ${where} refused the login: ${e.description}`)
          : new DomainError('connection.unreachable', `The server at ${where} refused the connection: ${e.description}`);
      }
      const known = e.code ? reasons[e.code] : undefined;
      const why = dialect.isTlsFailure(e, known !== undefined) ? `TLS failed: ${e.message}` : known ?? e.message;
      return new DomainError('connection.unreachable', `Cannot reach the database at ${where}: ${why}`);
    },
    statementError(err) {
      if (err instanceof DomainError) return err;
      const e = dialect.read(err);
      if (e.server) return dialect.statementRefusal(err, e.description) ?? new DomainError('query.failed', e.description);
      const known = e.code ? reasons[e.code] : undefined;
      return new DomainError('query.failed', `The statement failed: ${known ?? e.message}`);
    },
  };
}
