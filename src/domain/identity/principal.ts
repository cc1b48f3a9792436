/** Who is calling: a signed-in user through a browser session, or an API key of a user. */
export type Role = 'viewer' | 'editor' | 'admin';
export type Scope = 'read' | 'run' | 'write' | 'admin';

export const ROLE_RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };
export const SCOPE_RANK: Record<Scope, number> = { read: 0, run: 1, write: 2, admin: 3 };

export interface PrincipalUser {
  id: string;
  name: string;
  role: Role;
  mustChangePassword: boolean;
  /** Signed in by password while the workspace requires a second factor the user must enrol first. */
  mustEnrol?: boolean;
}

export type Principal =
  | { kind: 'session'; user: PrincipalUser; sessionId: string; csrfToken: string; acceptedCsrfTokens: string[] }
  | { kind: 'api_key'; user: PrincipalUser; apiKeyId: string; scope: Scope };

export interface Credentials {
  sessionToken?: string | undefined;
  bearerToken?: string | undefined;
  ip: string;
  userAgent: string | undefined;
}

/** Resolves credentials to a principal; null when they are unknown, expired or revoked. */
export interface Authenticator {
  authenticate(credentials: Credentials): Promise<Principal | null>;
}

export function roleAtLeast(role: Role, min: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[min];
}

export function scopeAtLeast(scope: Scope, min: Scope): boolean {
  return SCOPE_RANK[scope] >= SCOPE_RANK[min];
}

/**
 * Whether the caller acts with an admin's rights: an admin's session, or an admin-scope key of
 * an admin (a key never exceeds its scope nor its owner's role).
 */
export function hasAdminRights(p: Principal): boolean {
  return roleAtLeast(p.user.role, 'admin') && (p.kind === 'session' || scopeAtLeast(p.scope, 'admin'));
}

/** Members' emails and account details are for admins and for the member themself. */
export function seesMemberDetails(p: Principal, memberId: string): boolean {
  return p.user.id === memberId || hasAdminRights(p);
}
