/** Job mail.password_reset: the emailed reset link, sent by a worker with retries. */
import type { JobSpec, JobType } from './catalog.js';
import { createResetMailSender } from '../domain/sign-in/password-reset-mail.js';

export interface ResetMailPayload {
  /** Random, made at request time; the link's token derives from it (see password-reset-mail.ts). */
  requestId: string;
  email: string;
  ip: string;
  userAgent?: string | undefined;
}

export const PASSWORD_RESET_MAIL: JobSpec<ResetMailPayload> = {
  name: 'mail.password_reset',
  queue: 'mail',
  attempts: 5,
  backoffMs: 5_000,
  timeoutMs: 60_000,
  parse(data) {
    const d = data as Partial<ResetMailPayload> | null;
    if (!d || typeof d.requestId !== 'string' || typeof d.email !== 'string' || typeof d.ip !== 'string') {
      throw new Error('mail.password_reset: malformed payload');
    }
    return { requestId: d.requestId, email: d.email, ip: d.ip, userAgent: typeof d.userAgent === 'string' ? d.userAgent : undefined };
  },
};

export function passwordResetMailJob(deps: Parameters<typeof createResetMailSender>[0]): JobType<ResetMailPayload> {
  const send = createResetMailSender(deps);
  return { ...PASSWORD_RESET_MAIL, handle: (p, { signal }) => send(p.requestId, p.email, { ip: p.ip, userAgent: p.userAgent }, signal) };
}
