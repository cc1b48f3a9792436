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
}

export type Principal =
  | { kind: 'session'; user: PrincipalUser; sessionId: string; csrfToken: string }
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
