/**
 * Identity housekeeping: sessions, reset links and sign-in steps (tickets, challenges, flows) that can no longer be used are deleted once
 * they have been dead for a while (kept that long for whoever investigates an incident; the
 * security events stay). Deleted in batches, so no statement runs long or holds many locks.
 * Safe to run from several schedulers at once.
 */
import type { IdentityRepos } from '../identity/ports.js';

/** How long a dead session or reset link is kept before it is deleted. */
export const KEEP_DEAD_ROWS_MS = 30 * 24 * 3600_000;
const BATCH = 5000;

/** Repeats a batch until it comes back short; returns how many rows went. */
async function inBatches(deleteBatch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteBatch();
    total += n;
    if (n < BATCH) return total;
  }
}

export async function purgeDeadIdentityRows(
  store: Pick<IdentityRepos, 'sessions' | 'passwordResets' | 'flows'>, policy: { idleMinutes: number }, now: Date,
): Promise<{ sessions: number; passwordResets: number; authFlows: number }> {
  const before = new Date(now.getTime() - KEEP_DEAD_ROWS_MS);
  const idleBefore = new Date(now.getTime() - KEEP_DEAD_ROWS_MS - policy.idleMinutes * 60_000);
  const sessions = await inBatches(() => store.sessions.deleteDead(before, idleBefore, BATCH));
  const passwordResets = await inBatches(() => store.passwordResets.deleteExpired(before, BATCH));
  // Tickets, challenges and single sign-on flows live minutes: a day after their end they go.
  const authFlows = await inBatches(() => store.flows.deleteDead(new Date(now.getTime() - 24 * 3600_000), BATCH));
  return { sessions, passwordResets, authFlows };
}
