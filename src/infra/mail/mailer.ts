/** The instance's own mail (password reset, test sends) through SVC_SMTP_URL with nodemailer. */
import nodemailer from 'nodemailer';
import { DomainError } from '../../domain/shared/errors.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  readonly configured: boolean;
  send(message: MailMessage): Promise<void>;
}

export function createMailer(smtpUrl: string | undefined, from: string | undefined): Mailer {
  if (!smtpUrl) {
    return {
      configured: false,
      async send() { throw new DomainError('mail.not_configured', 'Set SVC_SMTP_URL to send mail from this instance'); },
    };
  }
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    configured: true,
    async send(message) {
      await transport.sendMail({ from: from ?? 'Herald <herald@localhost>', ...message });
    },
  };
}
