/**
 * Pure helpers of the API keys page: which scopes a key for an owner of a given role is worth
 * offering, the expiry presets, and a key's state. The API decides anyway (a key never exceeds
 * its owner's role); this only keeps the form from offering a scope that would act as a lower one.
 */
export type Role = 'viewer' | 'editor' | 'admin';
export type Scope = 'read' | 'run' | 'write' | 'admin';

export const SCOPES: readonly Scope[] = ['read', 'run', 'write', 'admin'];

/**
 * The highest scope that any operation open to the role asks of a key (the contract's x-min-role
 * and x-min-scope; tests/unit/web-admin-keys.test.ts checks it against the generated table):
 * a viewer's operations need read, an editor's up to write, an admin's admin.
 */
export const HIGHEST_SCOPE: Record<Role, Scope> = { viewer: 'read', editor: 'write', admin: 'admin' };

/** The scopes worth granting a key of an owner with `role`, lowest first. */
export function scopesFor(role: Role): Scope[] {
  return SCOPES.slice(0, SCOPES.indexOf(HIGHEST_SCOPE[role]) + 1);
}

/** `scope` when the role grants it, else the highest scope the role grants. */
export function capScope(scope: Scope, role: Role): Scope {
  const offered = scopesFor(role);
  return offered.includes(scope) ? scope : offered[offered.length - 1]!;
}

export const EXPIRY_PRESETS = ['never', '7', '30', '90', '365'] as const;
export type ExpiryPreset = (typeof EXPIRY_PRESETS)[number];

/** When a key made `now` with the preset stops working (ISO), or undefined for never. */
export function expiresAt(preset: ExpiryPreset, now: Date): string | undefined {
  if (preset === 'never') return undefined;
  return new Date(now.getTime() + Number(preset) * 86_400_000).toISOString();
}

export type KeyState = 'active' | 'revoked' | 'expired';

/** A key as its owner would describe it: revoked, expired (past expires_at) or active. */
export function keyState(key: { revoked_at: string | null; expires_at: string | null }, now: Date): KeyState {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && new Date(key.expires_at).getTime() <= now.getTime()) return 'expired';
  return 'active';
}
