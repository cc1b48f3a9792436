/** The instance's own mail (password reset, test sends) through SVC_SMTP_URL with nodemailer, loaded on the first send. */
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { DomainError } from '../../core/errors.js';
import type { Mailer } from '../../domain/identity/ports.js';

/** The domain's Mailer port; `configured` says whether SVC_SMTP_URL is set (sends fail without it). */
export function createMailer(smtpUrl: string | undefined, from: string | undefined): Mailer & { readonly configured: boolean } {
  if (!smtpUrl) {
    return {
      configured: false,
      async send() { throw new DomainError('mail.not_configured', 'Set SVC_SMTP_URL to send mail from this instance'); },
    };
  }
  // Every wait ends well inside the mail job's own time limit, so a stalled server fails the
  // attempt (and the job retries) instead of outliving it.
  let transport: Transporter | undefined;
  return {
    configured: true,
    async send(message) {
      const { default: nodemailer } = await import('nodemailer');
      transport ??= nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 } as SMTPTransport.Options);
      await transport.sendMail({ from: from ?? 'Herald <herald@localhost>', ...message });
    },
  };
}
