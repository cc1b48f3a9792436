/**
 * The worker's job list: every job type of the catalog with the services it needs, built from
 * the shared container. A feature adds its job types here, one line each.
 */
import type { Container } from './container.js';
import { jobCatalog, type JobCatalog } from './jobs/catalog.js';
import { createMailer } from './infra/mail/mailer.js';
import { passwordResetMailJob } from './jobs/password-reset-mail.js';

export function buildJobCatalog(c: Pick<Container, 'settings' | 'identity' | 'clock'>): JobCatalog {
  return jobCatalog([
    passwordResetMailJob({
      store: c.identity,
      mailer: createMailer(c.settings.smtpUrl, c.settings.mailFrom),
      publicUrl: c.settings.publicUrl,
      secretKey: c.settings.keys.hmac,
      clock: c.clock,
    }),
  ]);
}
