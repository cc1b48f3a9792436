/**
 * The operator's commands of `herald` that change the store directly, without the API:
 * `herald admin reset-password EMAIL` and `herald rotate-secret-key`. Both need only the store
 * (SVC_DATABASE_URL), no Redis.
 */
import type { Settings } from '../infra/config/settings.js';
import { createDb } from '../infra/db/client.js';
import { pendingMigrations } from '../infra/db/migrate.js';
import { createSecretBox } from '../infra/crypto/secret-box.js';
import { rotateSealedColumns, type ColumnRotation } from '../infra/crypto/rotation.js';
import { SEALED_COLUMNS, type SealedColumn } from '../infra/crypto/sealed-columns.js';
import { createPasswordHasher } from '../domain/identity/passwords.js';
import { createUsersService } from '../domain/users/users-service.js';
import { normalizeEmail } from '../domain/identity/tokens.js';
import type { Actor } from '../domain/audit/security-events.js';
import { createIdentityStore } from '../infra/db/stores/identity-store.js';
import { systemClock } from '../core/clock.js';
import { createUnitOfWork, txReposOf } from '../infra/db/unit-of-work.js';

/** What an operator is told, and the exit code. */
export interface Outcome { code: number; stdout: string; stderr: string }

/**
 * The audit actor of a command run on the server: type `system` (openapi.yaml SecurityEvent
 * actor), with the command as its user agent.
 */
function commandActor(command: string): Actor {
  return { type: 'system', userId: null, apiKeyId: null, ip: null, userAgent: `herald ${command}` };
}

async function withStore<T>(settings: Settings, name: string, use: (store: ReturnType<typeof createDb>) => Promise<T>): Promise<T> {
  const store = createDb(settings.databaseUrl, { max: 2, applicationName: `herald-${name}`, statementTimeoutMs: settings.storeTimeoutSeconds * 1000, lockTimeoutMs: settings.storeLockSeconds * 1000, prepare: settings.databasePrepare });
  try {
    return await use(store);
  } finally {
    await store.sql.end({ timeout: 5 });
  }
}

async function unmigrated(sql: ReturnType<typeof createDb>['sql']): Promise<Outcome | undefined> {
  const pending = await pendingMigrations(sql);
  if (pending === 0) return undefined;
  return { code: 1, stdout: '', stderr: `herald: the store at SVC_DATABASE_URL lacks ${pending} migration(s); run \`herald migrate\` first\n` };
}

/**
 * A lost password, with no mail needed: a new temporary password the user must change at the
 * next sign-in, as an admin's reset through the API does (POST /users/{id}/reset-password):
 * the user's sessions end and pending reset links stop working; a security event records it.
 */
export async function resetPasswordCommand(settings: Settings, email: string | undefined): Promise<Outcome> {
  if (email === undefined || email.trim() === '') {
    return { code: 2, stdout: '', stderr: 'herald: usage: herald admin reset-password EMAIL\n' };
  }
  return withStore(settings, 'admin', async ({ sql, db }) => {
    const notReady = await unmigrated(sql);
    if (notReady) return notReady;
    const store = createIdentityStore(db);
    const uow = createUnitOfWork(db, txReposOf);
    const user = await store.users.findByEmail(normalizeEmail(email));
    if (!user) return { code: 1, stdout: '', stderr: `herald: no user has the email address ${email.trim()}\n` };
    const users = createUsersService({ store, uow, hasher: createPasswordHasher(settings.bcryptCost), clock: systemClock });
    const password = await users.resetPassword(user.id, undefined, commandActor('admin reset-password'));
    const lines = [
      `Temporary password for ${user.email} (${user.role}): ${password}`,
      'Sign in with it; Herald then asks for a new password before anything else.',
      'Every session of this user has ended, and pending password-reset links no longer work.',
    ];
    if (!user.enabled) lines.push('Note: this user is disabled; an admin must enable them before they can sign in.');
    return { code: 0, stdout: `${lines.join('\n')}\n`, stderr: '' };
  });
}

function describeRotation(r: ColumnRotation): string {
  const parts = [`${r.resealed} re-sealed`, `${r.current} now under the current key`];
  if (r.changed > 0) parts.push(`${r.changed} changed meanwhile (run again)`);
  if (r.failed > 0) parts.push(`${r.failed} no key opens (rows ${r.failedIds.join(', ')}${r.failed > r.failedIds.length ? ', …' : ''})`);
  return `${r.column}: ${parts.join(', ')}`;
}

/**
 * Re-seals every sealed column with the current SVC_SECRET_KEY, so the previous keys can be
 * dropped from SVC_SECRET_KEY_PREVIOUS. Idempotent, and safe while the service runs.
 */
export async function rotateSecretKeyCommand(
  settings: Settings, columns: readonly SealedColumn[] = SEALED_COLUMNS, progress?: (line: string) => void,
): Promise<Outcome> {
  const box = createSecretBox(settings.keys);
  return withStore(settings, 'rotate-secret-key', async ({ sql }) => {
    const notReady = await unmigrated(sql);
    if (notReady) return notReady;
    const results = await rotateSealedColumns(sql, box, columns, {
      onBatch: (r) => progress?.(`${r.column}: ${r.resealed} re-sealed so far`),
    });
    const lines = [`Current key: ${box.kid}; previous keys: ${settings.keys.previous.map((k) => k.kid).join(', ') || 'none'}`,
      ...results.map(describeRotation)];
    const failed = results.some((r) => r.failed > 0);
    const changed = results.some((r) => r.changed > 0);
    lines.push(failed
      ? 'Some values open with no key given: keep SVC_SECRET_KEY_PREVIOUS, add the key they were sealed with, and run again.'
      : changed ? 'Values changed during the run: run again to be sure every value is under the current key.'
        : 'Every sealed value is under the current key: SVC_SECRET_KEY_PREVIOUS can be removed.');
    return { code: failed ? 1 : 0, stdout: `${lines.join('\n')}\n`, stderr: '' };
  });
}
