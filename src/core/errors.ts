import type { FieldCode, ProblemCode } from '../generated/error-codes.js';

export type { FieldCode, ProblemCode };

/**
 * The one error vocabulary of the domain. Domain code throws DomainError with a stable code;
 * the HTTP edge maps codes to statuses (src/handlers/error-status.ts). The domain knows no HTTP.
 */
export interface FieldProblem {
  field: string;
  /** A per-field code of the catalogue (openapi.yaml x-field-codes): a typo fails to compile. */
  code: FieldCode;
  message?: string;
  /** The line of the submitted text the field is on (YAML imports), where known. */
  line?: number;
}

export interface Dependent {
  type: string;
  /** Absent for a dependent that is no resource (the alert settings). */
  id?: string;
  name: string;
}

export interface DomainErrorExtras {
  errors?: FieldProblem[];
  dependents?: Dependent[];
  /** Seconds the caller should wait (rate limits). */
  retryAfterSeconds?: number;
}

export class DomainError extends Error {
  /** `code` comes from the catalogue (openapi.yaml x-problem-codes): an unknown code fails to compile. */
  constructor(readonly code: ProblemCode, message?: string, readonly extras: DomainErrorExtras = {}) {
    super(message ?? code);
    this.name = 'DomainError';
  }
}

export function notFound(what = 'resource'): DomainError {
  return new DomainError('not_found', `No such ${what}`);
}

export function validationFailed(errors: FieldProblem[], message = 'The request is not valid'): DomainError {
  return new DomainError('validation.failed', message, { errors });
}

export function versionConflict(): DomainError {
  return new DomainError('conflict.version', 'The resource changed since you read it; fetch it again and retry');
}

export function inUse(resource: 'connection' | 'query' | 'channel', dependents: Dependent[]): DomainError {
  return new DomainError(`${resource}.in_use`, `This ${resource} is still used`, { dependents });
}

/**
 * A send that did not work (a channel plugin's, or the guarded outbound HTTP client's: a refused
 * address, a time-out, an unreachable host). The message never contains a secret (no URL with
 * its token).
 */
export class ChannelSendError extends Error {
  constructor(
    /** A stable code of the catalogue: delivery.timeout, delivery.unreachable, delivery.rejected, delivery.peer_error, outbound.refused, … */
    readonly code: ProblemCode,
    message: string,
    readonly options: {
      /** Whether trying again may help: timeouts, connection errors, 5xx, 429. */
      transient: boolean;
      statusCode?: number | null;
      /** From a 429/503 Retry-After, in ms. */
      retryAfterMs?: number | null;
    },
  ) {
    super(message);
    this.name = 'ChannelSendError';
  }
}
