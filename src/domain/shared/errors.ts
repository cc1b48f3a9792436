/**
 * The one error vocabulary of the domain. Domain code throws DomainError with a stable code;
 * the HTTP edge maps codes to statuses (src/handlers/error-status.ts). The domain knows no HTTP.
 */
export interface FieldProblem {
  field: string;
  code: string;
  message?: string;
}

export interface Dependent {
  type: string;
  id: string;
  name: string;
}

export interface DomainErrorExtras {
  errors?: FieldProblem[];
  dependents?: Dependent[];
  /** Seconds the caller should wait (rate limits). */
  retryAfterSeconds?: number;
}

export class DomainError extends Error {
  constructor(readonly code: string, message?: string, readonly extras: DomainErrorExtras = {}) {
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

export function inUse(resource: string, dependents: Dependent[]): DomainError {
  return new DomainError(`${resource}.in_use`, `This ${resource} is still used`, { dependents });
}
