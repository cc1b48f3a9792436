/** Domain rows → the wire shapes of openapi.yaml (snake_case, RFC 3339 times). */
import type { components } from '../generated/openapi.js';
import type {
  ApiKeyRecord as ApiKeyRow, PasskeyRecord, SecurityEventRecord as SecurityEventRow, User as UserRow,
} from '../domain/identity/model.js';
import type { SignedIn } from '../domain/sign-in/auth-shared.js';
import type { WorkspaceSettings } from '../domain/workspace/workspace-settings.js';
import type { OidcSettings } from '../domain/sign-in/oidc-service.js';
import type { Actor } from '../domain/audit/security-events.js';
import { preferencesOf } from '../domain/users/users-service.js';
import type { IssuedSession } from '../domain/sign-in/sessions.js';
import { DEVICE_TOKEN_MAX_AGE_SECONDS } from '../domain/identity/tokens.js';
import type { CookieToSet, RequestContext } from './types.js';
import { seesMemberDetails, type Principal } from '../domain/identity/principal.js';

type Schemas = components['schemas'];
const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/** The revision of the member's view: part of its ETags, with the store's row stamps (see CONNECTION_VIEW). */
export const USER_VIEW = 'user-1';

/** A member as everyone sees it: name, role and times. */
function memberSummary(row: UserRow): Schemas['User'] {
  return { id: row.id, name: row.name, role: row.role as Schemas['Role'], created_at: iso(row.createdAt), updated_at: iso(row.updatedAt) };
}

function memberDetails(row: UserRow) {
  return {
    ...memberSummary(row), email: row.email, enabled: row.enabled, must_change_password: row.mustChangePassword,
    two_factor_enabled: row.totpEnabled, last_sign_in_at: isoOrNull(row.lastSignInAt), version: row.version,
  };
}

/** A member as `viewer` may see it (seesMemberDetails decides). */
export function userView(row: UserRow, viewer: Principal | null): Schemas['User'] {
  return viewer && seesMemberDetails(viewer, row.id) ? memberDetails(row) : memberSummary(row);
}

export function meView(row: UserRow): Schemas['Me'] {
  return { ...memberDetails(row), preferences: preferencesOf(row) };
}

export function apiKeyView(row: ApiKeyRow): Schemas['ApiKey'] {
  return {
    id: row.id, name: row.name, prefix: row.prefix, scope: row.scope as Schemas['Scope'], owner_id: row.userId,
    created_by: row.createdBy, created_at: iso(row.createdAt), expires_at: isoOrNull(row.expiresAt),
    last_used_at: isoOrNull(row.lastUsedAt), revoked_at: isoOrNull(row.revokedAt),
  };
}

export function securityEventView(row: SecurityEventRow): Schemas['SecurityEvent'] {
  return {
    id: row.id, type: row.type, occurred_at: iso(row.occurredAt), outcome: row.outcome as 'success' | 'failure',
    reason: row.reason,
    actor: { type: row.actorType, user_id: row.actorUserId, api_key_id: row.actorApiKeyId },
    target: row.targetType && row.targetId ? { type: row.targetType, id: row.targetId } : null,
    user_id: row.subjectUserId, ip: row.ip, user_agent: row.userAgent, details: row.details,
  };
}

/** The audit actor of a request. */
export function actorOf(ctx: RequestContext): Actor {
  const p = ctx.principal;
  const where = { ip: ctx.ip, userAgent: ctx.userAgent };
  if (!p) return { type: 'anonymous', ...where };
  if (p.kind === 'api_key') return { type: 'api_key', userId: p.user.id, apiKeyId: p.apiKeyId, ...where };
  return { type: 'user', userId: p.user.id, ...where };
}

/** The session cookies, plus the account's svc_device_<account> cookie (sign-in paths only) when given. */
export function sessionCookies(session: IssuedSession, device?: { name: string; token: string }): CookieToSet[] {
  const cookies: CookieToSet[] = [
    { name: 'svc_session', value: session.token, httpOnly: true, maxAge: session.maxAgeSeconds },
    { name: 'svc_csrf', value: session.csrfToken, httpOnly: false, maxAge: session.maxAgeSeconds },
  ];
  if (device) cookies.push(deviceCookie(device));
  return cookies;
}

/** The svc_device_<account> cookie: sent back only to the sign-in operations. */
export function deviceCookie(device: { name: string; token: string }): CookieToSet {
  return { name: device.name, value: device.token, httpOnly: true, maxAge: DEVICE_TOKEN_MAX_AGE_SECONDS, path: '/api/v1/auth' };
}

export const clearedCookies: CookieToSet[] = [
  { name: 'svc_session', value: '', httpOnly: true, maxAge: 0 },
  { name: 'svc_csrf', value: '', httpOnly: false, maxAge: 0 },
];

/** The caller, for operations that the access layer already required a principal for. */
export function principalOf(ctx: RequestContext) {
  if (!ctx.principal) throw new Error('operation reached without a principal');
  return ctx.principal;
}

export function sessionOf(ctx: RequestContext) {
  const p = principalOf(ctx);
  if (p.kind !== 'session' || !ctx.sessionToken) throw new Error('session-only operation reached without a session');
  return { userId: p.user.id, sessionId: p.sessionId, token: ctx.sessionToken };
}

/** The answer of every sign-in that ends with a session: the user, the CSRF token and the cookies. */
export function signedInAnswer(s: SignedIn) {
  return {
    status: 200 as const,
    body: {
      status: 'signed_in' as const, user: meView(s.user), csrf_token: s.session.csrfToken,
      ...(s.recoveryCodesRemaining !== undefined ? { recovery_codes_remaining: s.recoveryCodesRemaining } : {}),
      ...(s.mustEnrol ? { must_enrol_second_factor: true } : {}),
    },
    cookies: sessionCookies(s.session, s.device),
  };
}

/** The svc_oidc cookie: binds a single sign-on flow to this browser (empty with maxAge 0 clears it). */
export function oidcFlowCookie(token: string, maxAge: number): CookieToSet {
  return { name: 'svc_oidc', value: token, httpOnly: true, maxAge, path: '/api/v1/auth/oidc' };
}

export function passkeyView(p: PasskeyRecord): Schemas['Passkey'] {
  return {
    id: p.id, name: p.name, created_at: iso(p.createdAt), updated_at: iso(p.updatedAt), last_used_at: isoOrNull(p.lastUsedAt),
    device_type: p.deviceType, backed_up: p.backedUp, transports: p.transports,
  };
}

export function workspaceSettingsView(s: WorkspaceSettings): Schemas['WorkspaceSettings'] {
  return { require_second_factor: s.requireSecondFactor, password_sign_in: s.passwordSignIn, version: s.version, updated_at: isoOrNull(s.updatedAt) };
}

export function oidcSettingsView(s: OidcSettings, redirectUri: string): Schemas['OidcSettings'] {
  return {
    enabled: s.enabled, issuer_url: s.issuerUrl, client_id: s.clientId, client_secret: s.hasClientSecret ? { configured: true } : null,
    scopes: s.scopes, role_claim: s.roleClaim, role_mapping: s.roleMapping, allowed_domains: s.allowedDomains,
    create_users: s.createUsers, default_role: s.defaultRole, button_label: s.buttonLabel, redirect_uri: redirectUri,
    version: s.version, updated_at: isoOrNull(s.updatedAt),
  };
}
