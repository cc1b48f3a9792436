/**
 * The emailed password reset, as a worker runs it: looks the address up, stores a single-use
 * token (its hash) valid for one hour, and mails the link. Unknown or disabled addresses get no
 * mail, and the caller of the API cannot tell the difference.
 */
import { createHmac } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { recordSecurityEvent } from '../audit/security-events.js';
import { normalizeEmail, tokenHash } from '../identity/tokens.js';
import { anonymous, type RequestMeta } from './auth-shared.js';
import type { IdentityStore, Mailer } from '../identity/ports.js';
import type { UnitOfWork } from '../unit-of-work/ports.js';

const RESET_TTL_MS = 3600_000;

/**
 * `requestId` is a random id made when the reset was asked for. The token is derived from it
 * (HMAC under the instance's HMAC key), so a retried job stores no second token, records no
 * second event, and resends the same link.
 */
export function createResetMailSender(deps: {
  store: Pick<IdentityStore, 'users' | 'events'>; uow: UnitOfWork; mailer: Mailer; publicUrl: string; secretKey: Buffer; clock: Clock;
}) {
  const { store, clock } = deps;
  return async (requestId: string, email: string, meta: RequestMeta, signal?: AbortSignal): Promise<void> => {
    const user = await store.users.findByEmail(normalizeEmail(email));
    if (!user || !user.enabled) {
      await recordSecurityEvent(store.events, { type: 'auth.password_reset_requested', outcome: 'failure', reason: user ? 'auth.user_disabled' : 'auth.unknown_user', actor: anonymous(meta), userId: user?.id ?? null }, clock);
      return;
    }
    const token = createHmac('sha256', deps.secretKey).update(`reset:${requestId}`).digest('base64url');
    await deps.uow.run(async (tx) => {
      const now = clock.now();
      const stored = await tx.passwordResets.insertOnce({
        id: newId(), userId: user.id, tokenHash: tokenHash(token), createdAt: now, expiresAt: new Date(now.getTime() + RESET_TTL_MS),
      });
      if (!stored) return; // a retry of a job that stored its token already
      await recordSecurityEvent(tx.securityEvents, { type: 'auth.password_reset_requested', actor: anonymous(meta), userId: user.id, target: { type: 'user', id: user.id } }, clock);
    });
    // Stopped (time limit, shutdown) before the mail went out: a retry resends the same link.
    signal?.throwIfAborted();
    const link = `${deps.publicUrl}/reset-password#token=${token}`;
    await deps.mailer.send({
      to: user.email,
      subject: 'Reset your Herald password',
      text: `Hello ${user.name},\n\nSomeone (hopefully you) asked to reset your Herald password. Open this link within one hour to choose a new one:\n\n${link}\n\nThe link works once. If you did not ask for this, ignore this message; your password stays as it is.\n`,
    });
  };
}
