/**
 * Identity housekeeping: sessions and reset links that can no longer be used are deleted once
 * they have been dead for a while (kept that long for whoever investigates an incident; the
 * security events stay). Deleted in batches, so no statement runs long or holds many locks.
 * Safe to run from several schedulers at once.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../infra/db/client.js';

/** How long a dead session or reset link is kept before it is deleted. */
export const KEEP_DEAD_ROWS_MS = 30 * 24 * 3600_000;
const BATCH = 5000;

/** Deletes in batches until a batch comes back short; returns how many rows went. */
async function deleteInBatches(db: Db, statement: () => ReturnType<typeof sql>): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await db.execute(statement());
    const n = (result as unknown as { count?: number }).count ?? 0;
    total += n;
    if (n < BATCH) return total;
  }
}

export async function purgeDeadIdentityRows(
  db: Db, policy: { idleMinutes: number }, now = new Date(),
): Promise<{ sessions: number; passwordResets: number }> {
  // Raw statements take times as text (the driver binds no Date there).
  const before = new Date(now.getTime() - KEEP_DEAD_ROWS_MS).toISOString();
  const idleBefore = new Date(now.getTime() - KEEP_DEAD_ROWS_MS - policy.idleMinutes * 60_000).toISOString();
  const sessions = await deleteInBatches(db, () => sql`delete from sessions where id in (
    select id from sessions
    where (revoked_at is not null and revoked_at < ${before}::timestamptz) or expires_at < ${before}::timestamptz
      or last_seen_at < ${idleBefore}::timestamptz
    limit ${BATCH})`);
  const passwordResets = await deleteInBatches(db, () => sql`delete from password_resets where id in (
    select id from password_resets where expires_at < ${before}::timestamptz limit ${BATCH})`);
  return { sessions, passwordResets };
}
