/**
 * The one piece of code that enforces each operation's declared access
 * (x-public, x-min-role, x-min-scope, x-session-only) and the CSRF rule for browser sessions.
 * Handlers never check roles themselves.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Access, OperationId } from '../generated/operations.js';
import { DomainError } from '../core/errors.js';
import {
  roleAtLeast, scopeAtLeast, type Authenticator, type Credentials, type Principal,
} from '../domain/identity/principal.js';

const SAFE_METHODS = new Set(['get', 'head', 'options']);
/** What a user who must choose a new password may still do. */
const ALLOWED_BEFORE_PASSWORD_CHANGE = new Set<OperationId>(['getMe', 'changeMyPassword', 'logout']);

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface AccessInput {
  operationId: OperationId;
  access: Access;
  method: string;
  credentials: Credentials;
  csrfHeader: string | undefined;
}

/** Returns the caller (null for public operations without credentials) or throws the refusal. */
export async function enforceAccess(authenticator: Authenticator, input: AccessInput): Promise<Principal | null> {
  const { access, credentials } = input;
  if (credentials.sessionToken && credentials.bearerToken) {
    throw new DomainError('auth.mixed_credentials', 'Send either the session cookie or the Authorization header');
  }
  if (access.public) return null;
  if (!credentials.sessionToken && !credentials.bearerToken) {
    throw new DomainError('auth.unauthenticated', 'This operation needs a session or an API key');
  }
  const principal = await authenticator.authenticate(credentials);
  if (!principal) throw new DomainError('auth.unauthenticated', 'The credential is unknown, expired or revoked');
  if (principal.kind === 'api_key' && access.sessionOnly) {
    throw new DomainError('auth.session_required', 'Sign in through a browser session for this operation');
  }
  if (principal.kind === 'session' && !SAFE_METHODS.has(input.method)) {
    if (!input.csrfHeader || !sameToken(input.csrfHeader, principal.csrfToken)) {
      throw new DomainError('auth.csrf_failed', 'Send the svc_csrf cookie value in X-CSRF-Token');
    }
  }
  if (principal.user.mustChangePassword && !ALLOWED_BEFORE_PASSWORD_CHANGE.has(input.operationId)) {
    throw new DomainError('auth.password_change_required', 'Choose a new password with POST /api/v1/me/password first');
  }
  // A key never exceeds its owner: both the owner's current role and the key's scope must suffice.
  const allowed = roleAtLeast(principal.user.role, access.minRole)
    && (principal.kind === 'session' || scopeAtLeast(principal.scope, access.minScope));
  if (!allowed) throw new DomainError('auth.forbidden', 'Your role or key scope is below what this operation needs');
  return principal;
}
