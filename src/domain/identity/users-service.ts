/**
 * Workspace members and the signed-in user's own profile. Role and enabled changes keep at
 * least one enabled admin; disabling a user ends its sessions and keys at once (they are
 * checked against the user's state on every request).
 */
import { DomainError, validationFailed, versionConflict } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../infra/db/client.js';
import { passwordProblems, temporaryPassword, type PasswordHasher } from './passwords.js';
import { recordSecurityEvent, type Actor } from './security-events.js';
import { revokeUserSessions } from './sessions.js';
import { expireResetLinks } from './password-resets.js';
import {
  getUser, insertUser, listUsers, lockEnabledAdmins, updateUserVersioned, type UserRow,
} from './users-store.js';
import type { Role } from './principal.js';

export interface Preferences {
  locale: string;
  timezone: string;
  theme: 'system' | 'light' | 'dark';
}

export const DEFAULT_PREFERENCES: Preferences = { locale: 'en', timezone: 'UTC', theme: 'system' };

export function preferencesOf(row: UserRow): Preferences {
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

export function createUsersService(deps: { db: Db; hasher: PasswordHasher }) {
  const { db } = deps;
  return {
    get: (id: string) => getUser(db, id),
    list: (q: { limit: number; cursor?: string }) => listUsers(db, q),

    async create(
      input: { name: string; email: string; role: Role; temporaryPassword?: string | undefined }, actor: Actor,
    ): Promise<{ user: UserRow; generatedPassword?: string }> {
      if (input.temporaryPassword !== undefined) {
        const problems = passwordProblems(input.temporaryPassword, input.email, 'temporary_password');
        if (problems.length > 0) throw validationFailed(problems);
      }
      const generated = input.temporaryPassword === undefined ? temporaryPassword() : undefined;
      const passwordHash = await deps.hasher.hash(input.temporaryPassword ?? generated!);
      const user = await db.transaction(async (tx) => {
        const row = await insertUser(tx, {
          id: newId(), name: input.name.trim(), email: input.email, role: input.role, passwordHash, mustChangePassword: true,
        });
        await recordSecurityEvent(tx, { type: 'user.created', actor, userId: row.id, target: { type: 'user', id: row.id }, details: { role: row.role } });
        return row;
      });
      return generated === undefined ? { user } : { user, generatedPassword: generated };
    },

    async update(
      id: string, input: { name?: string | undefined; role?: Role | undefined; enabled?: boolean | undefined; version: number }, actor: Actor,
    ): Promise<UserRow> {
      return db.transaction(async (tx) => {
        const before = await getUser(tx, id);
        // A stale version is the first thing to tell: the caller's picture of the user is old.
        if (before.version !== input.version) throw versionConflict();
        const losesAdmin = before.role === 'admin' && before.enabled
          && ((input.role !== undefined && input.role !== 'admin') || input.enabled === false);
        if (losesAdmin) {
          const admins = await lockEnabledAdmins(tx);
          if (admins.filter((a) => a !== id).length === 0) {
            throw new DomainError('user.last_admin', 'The last enabled admin can be neither demoted nor disabled');
          }
        }
        const changes: Partial<UserRow> = {};
        if (input.name !== undefined) changes.name = input.name.trim();
        if (input.role !== undefined) changes.role = input.role;
        if (input.enabled !== undefined) changes.enabled = input.enabled;
        const after = await updateUserVersioned(tx, id, input.version, changes);
        if (before.role !== after.role) {
          await recordSecurityEvent(tx, { type: 'user.role_changed', actor, userId: id, target: { type: 'user', id }, details: { from: before.role, to: after.role } });
        }
        if (before.enabled !== after.enabled) {
          if (!after.enabled) await revokeUserSessions(tx, id);
          await recordSecurityEvent(tx, { type: 'user.enabled_changed', actor, userId: id, target: { type: 'user', id }, details: { enabled: after.enabled } });
        }
        return after;
      });
    },

    /** A new temporary password; the user must choose their own at the next sign-in. */
    async resetPassword(id: string, given: string | undefined, actor: Actor): Promise<string> {
      const user = await getUser(db, id);
      if (given !== undefined) {
        const problems = passwordProblems(given, user.email, 'temporary_password');
        if (problems.length > 0) throw validationFailed(problems);
      }
      const password = given ?? temporaryPassword();
      const passwordHash = await deps.hasher.hash(password);
      await db.transaction(async (tx) => {
        await updateUserVersioned(tx, id, undefined, { passwordHash, mustChangePassword: true, passwordChangedAt: new Date() });
        const ended = await revokeUserSessions(tx, id);
        await expireResetLinks(tx, id);
        await recordSecurityEvent(tx, { type: 'user.password_reset_by_admin', actor, userId: id, target: { type: 'user', id }, details: { sessions_ended: ended } });
      });
      return password;
    },

    async updateMe(
      id: string, input: { name?: string | undefined; preferences?: Partial<Preferences> | undefined; version: number },
    ): Promise<UserRow> {
      const preferences = input.preferences && { ...input.preferences };
      if (preferences?.timezone !== undefined) {
        const canonical = canonicalTimeZone(preferences.timezone);
        if (!canonical) throw validationFailed([{ field: 'preferences.timezone', code: 'validation.invalid', message: 'is not an IANA time zone' }]);
        preferences.timezone = canonical;
      }
      return db.transaction(async (tx) => {
        const before = await getUser(tx, id);
        const changes: Partial<UserRow> = {};
        if (input.name !== undefined) changes.name = input.name.trim();
        if (preferences !== undefined) changes.preferences = { ...(before.preferences ?? {}), ...preferences };
        return updateUserVersioned(tx, id, input.version, changes);
      });
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
