/**
 * Identity housekeeping: sessions and reset links that can no longer be used are deleted once
 * they have been dead for a while (kept that long for whoever investigates an incident; the
 * security events stay). Safe to run from several schedulers at once.
 */
import { and, isNotNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../infra/db/client.js';
import { passwordResets, sessions } from '../../infra/db/schema.js';

/** How long a dead session or reset link is kept before it is deleted. */
export const KEEP_DEAD_ROWS_MS = 30 * 24 * 3600_000;

export async function purgeDeadIdentityRows(
  db: Db, policy: { idleMinutes: number }, now = new Date(),
): Promise<{ sessions: number; passwordResets: number }> {
  const before = new Date(now.getTime() - KEEP_DEAD_ROWS_MS);
  const idleBefore = new Date(before.getTime() - policy.idleMinutes * 60_000);
  const deadSessions = await db.delete(sessions).where(or(
    and(isNotNull(sessions.revokedAt), lt(sessions.revokedAt, before)),
    lt(sessions.expiresAt, before),
    lt(sessions.lastSeenAt, idleBefore),
  )).returning({ id: sessions.id });
  const deadResets = await db.delete(passwordResets).where(lt(passwordResets.expiresAt, before)).returning({ id: passwordResets.id });
  return { sessions: deadSessions.length, passwordResets: deadResets.length };
}
