/**
 * The one piece of code that enforces each operation's declared access
 * (x-public, x-min-role, x-min-scope, x-session-only) and the CSRF rule for browser sessions.
 * Handlers never check roles themselves.
 */
import type { Access, OperationId, Role, Scope } from '../generated/operations.js';
import { DomainError } from '../core/errors.js';
import {
  roleAtLeast, scopeAtLeast, type Authenticator, type Credentials, type Principal,
} from '../domain/identity/principal.js';
import { sameToken } from '../domain/identity/tokens.js';

const SAFE_METHODS = new Set(['get', 'head', 'options']);
/** What a user who must choose a new password may still do. */
const ALLOWED_BEFORE_PASSWORD_CHANGE = new Set<OperationId>(['getMe', 'changeMyPassword', 'logout']);
/** What a user who must enrol a second factor (workspace policy) may still do. */
const ALLOWED_BEFORE_ENROLMENT = new Set<OperationId>([
  'getMe', 'changeMyPassword', 'logout', 'getSettings', 'startTotpSetup', 'confirmTotpSetup', 'listMyPasskeys', 'startPasskeyRegistration', 'addMyPasskey',
]);

/**
 * 403 auth.forbidden naming what was needed: the problem document carries required_role (and,
 * for API keys, required_scope) beside a detail that says what the caller has.
 */
export class AccessDenied extends DomainError {
  constructor(readonly requiredRole: Role, readonly requiredScope: Scope | undefined, detail: string) {
    super('auth.forbidden', detail);
  }

  /** The Problem schema's extension members. */
  get members(): { required_role: Role; required_scope?: Scope } {
    return { required_role: this.requiredRole, ...(this.requiredScope ? { required_scope: this.requiredScope } : {}) };
  }
}

function denial(principal: Principal, minRole: Role, minScope: Scope): AccessDenied | undefined {
  const roleOk = roleAtLeast(principal.user.role, minRole);
  if (principal.kind === 'session') {
    return roleOk ? undefined
      : new AccessDenied(minRole, undefined, `This operation needs the ${minRole} role or above; you have the ${principal.user.role} role`);
  }
  // A key never exceeds its owner: both the owner's current role and the key's scope must suffice.
  if (roleOk && scopeAtLeast(principal.scope, minScope)) return undefined;
  return new AccessDenied(minRole, minScope, `This operation needs an API key of scope ${minScope} or above whose owner has the `
    + `${minRole} role or above; this key has scope ${principal.scope} and its owner the ${principal.user.role} role (a key never exceeds its owner)`);
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
    const header = input.csrfHeader;
    if (!header || !principal.acceptedCsrfTokens.some((t) => sameToken(header, t))) {
      throw new DomainError('auth.csrf_failed', 'Send the svc_csrf cookie value in X-CSRF-Token');
    }
  }
  if (principal.user.mustChangePassword && !ALLOWED_BEFORE_PASSWORD_CHANGE.has(input.operationId)) {
    throw new DomainError('auth.password_change_required', 'Choose a new password with POST /api/v1/me/password first');
  }
  if (principal.user.mustEnrol && !ALLOWED_BEFORE_ENROLMENT.has(input.operationId)) {
    throw new DomainError('auth.second_factor_enrolment_required',
      'The workspace requires a second factor: enrol an authenticator app (POST /api/v1/me/2fa/totp/setup) or a passkey first');
  }
  const denied = denial(principal, access.minRole, access.minScope);
  if (denied) throw denied;
  return principal;
}
