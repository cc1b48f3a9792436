/**
 * The emailed password reset, as a worker runs it: looks the address up, stores a single-use
 * token (its hash) valid for one hour, and mails the link. Unknown or disabled addresses get no
 * mail, and the caller of the API cannot tell the difference.
 */
import { createHmac } from 'node:crypto';
import type { Db } from '../../infra/db/client.js';
import type { Mailer } from '../../infra/mail/mailer.js';
import { passwordResets } from '../../infra/db/schema.js';
import { newId } from '../../core/ids.js';
import { recordSecurityEvent, type Actor } from './security-events.js';
import { tokenHash } from './tokens.js';
import { findUserByEmail } from './users-store.js';
import type { RequestMeta } from './auth-service.js';

const RESET_TTL_MS = 3600_000;
const anonymous = (meta: RequestMeta): Actor => ({ type: 'anonymous', ip: meta.ip, userAgent: meta.userAgent });

/**
 * `requestId` is a random id made when the reset was asked for. The token is derived from it
 * (HMAC under SVC_SECRET_KEY), so a retried job stores no second token, records no second event,
 * and resends the same link.
 */
export function createResetMailSender(deps: { db: Db; mailer: Mailer; publicUrl: string; secretKey: Buffer }) {
  const { db } = deps;
  return async (requestId: string, email: string, meta: RequestMeta): Promise<void> => {
    const user = await findUserByEmail(db, email);
    if (!user || !user.enabled) {
      await recordSecurityEvent(db, { type: 'auth.password_reset_requested', outcome: 'failure', reason: user ? 'auth.user_disabled' : 'auth.unknown_user', actor: anonymous(meta), userId: user?.id ?? null });
      return;
    }
    const token = createHmac('sha256', deps.secretKey).update(`reset:${requestId}`).digest('base64url');
    await db.transaction(async (tx) => {
      const stored = await tx.insert(passwordResets).values({
        id: newId(), userId: user.id, tokenHash: tokenHash(token), expiresAt: new Date(Date.now() + RESET_TTL_MS),
      }).onConflictDoNothing({ target: passwordResets.tokenHash }).returning({ id: passwordResets.id });
      if (stored.length === 0) return; // a retry of a job that stored its token already
      await recordSecurityEvent(tx, { type: 'auth.password_reset_requested', actor: anonymous(meta), userId: user.id, target: { type: 'user', id: user.id } });
    });
    const link = `${deps.publicUrl}/reset-password#token=${token}`;
    await deps.mailer.send({
      to: user.email,
      subject: 'Reset your Herald password',
      text: `Hello ${user.name},\n\nSomeone (hopefully you) asked to reset your Herald password. Open this link within one hour to choose a new one:\n\n${link}\n\nThe link works once. If you did not ask for this, ignore this message; your password stays as it is.\n`,
    });
  };
}
