/**
 * Workspace members and the signed-in user's own profile. Role and enabled changes keep at
 * least one enabled admin; disabling a user ends its sessions and keys at once (they are
 * checked against the user's state on every request).
 */
import type { Clock } from '../../core/clock.js';
import { DomainError, validationFailed, versionConflict } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { passwordProblems, temporaryPassword, type PasswordHasher } from '../identity/passwords.js';
import { recordSecurityEvent, type Actor } from '../audit/security-events.js';
import { getUser } from '../identity/users.js';
import type { Role } from '../identity/principal.js';
import type { User, UserChanges } from '../identity/model.js';
import type { IdentityStore } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

export interface Preferences {
  locale: string;
  timezone: string;
  theme: 'system' | 'light' | 'dark';
}

export const DEFAULT_PREFERENCES: Preferences = { locale: 'en', timezone: 'UTC', theme: 'system' };

export function preferencesOf(row: User): Preferences {
  return { ...DEFAULT_PREFERENCES, ...(row.preferences as Partial<Preferences>) };
}

/**
 * An IANA time zone in its proper case (europe/berlin → Europe/Berlin), or undefined when it is
 * none. The name is otherwise kept as given: ICU would turn Asia/Kolkata into Asia/Calcutta.
 */
function canonicalTimeZone(tz: string): string | undefined {
  try {
    const resolved = new Intl.DateTimeFormat('en', { timeZone: tz }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === tz.toLowerCase() ? resolved : tz;
  } catch {
    return undefined;
  }
}

export function createUsersService(deps: {
  store: Pick<IdentityStore, 'users'>; uow: UnitOfWork; hasher: PasswordHasher; clock: Clock;
}) {
  const { store, clock } = deps;
  return {
    get: (id: string) => getUser(store.users, id),
    list: (q: { limit: number; cursor?: string }) => store.users.list(q),

    async create(
      input: { name: string; email: string; role: Role; temporaryPassword?: string | undefined }, actor: Actor,
    ): Promise<{ user: User; generatedPassword?: string }> {
      if (input.temporaryPassword !== undefined) {
        const problems = passwordProblems(input.temporaryPassword, input.email, 'temporary_password');
        if (problems.length > 0) throw validationFailed(problems);
      }
      const generated = input.temporaryPassword === undefined ? temporaryPassword() : undefined;
      const passwordHash = await deps.hasher.hash(input.temporaryPassword ?? generated!);
      const user = await deps.uow.run(async (tx) => {
        const now = clock.now();
        const row = await tx.users.insert({
          id: newId(), name: input.name.trim(), email: input.email, role: input.role, passwordHash, mustChangePassword: true, passwordChangedAt: now,
        });
        await recordSecurityEvent(tx.securityEvents, { type: 'user.created', actor, userId: row.id, target: { type: 'user', id: row.id }, details: { role: row.role } }, clock);
        return row;
      });
      return generated === undefined ? { user } : { user, generatedPassword: generated };
    },

    async update(
      id: string, input: { name?: string | undefined; role?: Role | undefined; enabled?: boolean | undefined; version: number }, actor: Actor,
    ): Promise<User> {
      return deps.uow.run(async (tx) => {
        const now = clock.now();
        const before = await getUser(tx.users, id);
        // A stale version is the first thing to tell: the caller's picture of the user is old.
        if (before.version !== input.version) throw versionConflict();
        const losesAdmin = before.role === 'admin' && before.enabled
          && ((input.role !== undefined && input.role !== 'admin') || input.enabled === false);
        if (losesAdmin) {
          const admins = await tx.users.lockEnabledAdmins();
          if (admins.filter((a) => a !== id).length === 0) {
            throw new DomainError('user.last_admin', 'The last enabled admin can be neither demoted nor disabled');
          }
        }
        const changes: UserChanges = {};
        if (input.name !== undefined) changes.name = input.name.trim();
        if (input.role !== undefined) changes.role = input.role;
        if (input.enabled !== undefined) changes.enabled = input.enabled;
        const after = await tx.users.update(id, input.version, changes, now);
        if (before.role !== after.role) {
          await recordSecurityEvent(tx.securityEvents, { type: 'user.role_changed', actor, userId: id, target: { type: 'user', id }, details: { from: before.role, to: after.role } }, clock);
        }
        if (before.enabled !== after.enabled) {
          if (!after.enabled) await tx.sessions.revokeAllOf(id, now);
          await recordSecurityEvent(tx.securityEvents, { type: 'user.enabled_changed', actor, userId: id, target: { type: 'user', id }, details: { enabled: after.enabled } }, clock);
        }
        return after;
      });
    },

    /** A new temporary password; the user must choose their own at the next sign-in. */
    async resetPassword(id: string, given: string | undefined, actor: Actor): Promise<string> {
      const user = await getUser(store.users, id);
      if (given !== undefined) {
        const problems = passwordProblems(given, user.email, 'temporary_password');
        if (problems.length > 0) throw validationFailed(problems);
      }
      const password = given ?? temporaryPassword();
      const passwordHash = await deps.hasher.hash(password);
      await deps.uow.run(async (tx) => {
        const now = clock.now();
        await tx.users.update(id, undefined, { passwordHash, mustChangePassword: true, passwordChangedAt: now }, now);
        const ended = await tx.sessions.revokeAllOf(id, now);
        await tx.passwordResets.expireAllOf(id, now);
        await recordSecurityEvent(tx.securityEvents, { type: 'user.password_reset_by_admin', actor, userId: id, target: { type: 'user', id }, details: { sessions_ended: ended } }, clock);
      });
      return password;
    },

    async updateMe(
      id: string, input: { name?: string | undefined; preferences?: Partial<Preferences> | undefined; version: number },
    ): Promise<User> {
      const preferences = input.preferences && { ...input.preferences };
      if (preferences?.timezone !== undefined) {
        const canonical = canonicalTimeZone(preferences.timezone);
        if (!canonical) throw validationFailed([{ field: 'preferences.timezone', code: 'validation.invalid', message: 'is not an IANA time zone' }]);
        preferences.timezone = canonical;
      }
      return deps.uow.run(async (tx) => {
        const before = await getUser(tx.users, id);
        const changes: UserChanges = {};
        if (input.name !== undefined) changes.name = input.name.trim();
        if (preferences !== undefined) changes.preferences = { ...(before.preferences ?? {}), ...preferences };
        return tx.users.update(id, input.version, changes, clock.now());
      });
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
