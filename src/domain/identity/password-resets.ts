/** Emailed reset links (their token hashes): what a password change does to the pending ones. */
import { and, eq, isNull } from 'drizzle-orm';
import { passwordResets } from '../../infra/db/schema.js';
import type { Tx } from '../../infra/db/client.js';

/** Every unused reset link of a user stops working: a new password was set some other way. */
export async function expireResetLinks(tx: Tx, userId: string): Promise<void> {
  await tx.update(passwordResets).set({ usedAt: new Date() })
    .where(and(eq(passwordResets.userId, userId), isNull(passwordResets.usedAt)));
}
