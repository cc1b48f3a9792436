/**
 * The one table from error codes to HTTP statuses. Domain code throws codes; only this file
 * knows which status each code answers with.
 */
const STATUS: Record<string, number> = {
  'request.malformed': 400,
  'auth.mixed_credentials': 400,
  'auth.unauthenticated': 401,
  'auth.invalid_credentials': 401,
  'auth.forbidden': 403,
  'auth.csrf_failed': 403,
  'auth.session_required': 403,
  'auth.password_change_required': 403,
  not_found: 404,
  'request.method_not_allowed': 405,
  'conflict.version': 409,
  'gitops.managed': 409,
  'setup.completed': 409,
  'idempotency.mismatch': 409,
  'user.last_admin': 409,
  'request.too_large': 413,
  'request.unsupported_media_type': 415,
  'validation.failed': 422,
  'auth.reset_token_invalid': 422,
  'connection.auth_failed': 422,
  'connection.unreachable': 422,
  'query.failed': 422,
  'query.timeout': 422,
  'query.not_read_only': 422,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  'mail.not_configured': 503,
  unavailable: 503,
};

export function statusForCode(code: string): number {
  const known = STATUS[code];
  if (known !== undefined) return known;
  if (code.endsWith('.in_use')) return 409;
  if (code.endsWith('.not_found')) return 404;
  return 500;
}

/** Short explanations served at /docs/errors/{code} and used as problem titles. */
export const TITLES: Record<string, string> = {
  'request.malformed': 'The request body is not valid JSON',
  'auth.mixed_credentials': 'Send either a session cookie or an API key, not both',
  'auth.unauthenticated': 'Sign in or send a valid API key',
  'auth.invalid_credentials': 'The email, password or code is wrong',
  'auth.forbidden': 'Your role or key scope does not allow this operation',
  'auth.csrf_failed': 'Send the svc_csrf cookie value in the X-CSRF-Token header',
  'auth.session_required': 'This operation accepts browser sessions only, not API keys',
  'auth.password_change_required': 'Choose a new password before doing anything else',
  'auth.reset_token_invalid': 'The password reset link is invalid, used or expired',
  not_found: 'There is nothing at this address',
  'request.method_not_allowed': 'This path does not accept this method',
  'conflict.version': 'The resource changed since you read it',
  'gitops.managed': 'The configuration directory manages this resource',
  'setup.completed': 'Setup is already done',
  'idempotency.mismatch': 'This Idempotency-Key was used with a different request',
  'user.last_admin': 'The last enabled admin can be neither demoted nor disabled',
  'request.too_large': 'The request body is too large',
  'request.unsupported_media_type': 'Send the body as application/json',
  'validation.failed': 'Some fields are not valid',
  'validation.required': 'A required field is missing',
  'validation.type': 'A field has the wrong type',
  'validation.format': 'A field is not in the expected format',
  'validation.range': 'A field is out of range (size, length or value)',
  'validation.enum': 'A field is not one of the allowed values',
  'validation.unknown_field': 'The body has a field the operation does not know',
  'validation.unique': 'The value is already used',
  'validation.invalid': 'A field is not valid',
  'validation.password_matches_email': 'The password must not be your email address',
  'validation.password_too_common': 'The password is one of the most common passwords',
  'connection.auth_failed': 'The database refused the login',
  'connection.unreachable': 'The database cannot be reached',
  'query.failed': 'The query failed',
  'query.timeout': 'The query took too long',
  'query.not_read_only': 'Herald runs read-only statements only',
  rate_limited: 'Too many requests; wait and retry',
  internal: 'Something went wrong on our side',
  not_implemented: 'This operation is not built yet',
  'mail.not_configured': 'This instance has no outgoing mail configured',
  unavailable: 'The service is temporarily unavailable',
};

export function titleForCode(code: string): string {
  return TITLES[code] ?? (code.endsWith('.in_use') ? 'The resource is still in use' : 'Request failed');
}
