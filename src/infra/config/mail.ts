/** The instance's own mail (password reset). */
import { optionalUrl, setting } from './schema.js';

export const mailSettings = {
  smtpUrl: optionalUrl('SVC_SMTP_URL', ['smtp:', 'smtps:'], 'SMTP server of the instance\'s own mail (password reset)', 'unset: such mail is refused'),
  mailFrom: setting({
    env: 'SVC_MAIL_FROM',
    description: 'sender of the instance\'s own mail, e.g. Herald <herald@example.com>',
    default: 'unset',
    parse(v, ctx) {
      if (v !== undefined && !/^[^\s@<>]+@[^\s@<>]+$|^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(v)) {
        ctx.fail('must be an address, e.g. Herald <herald@example.com>');
      }
      return v;
    },
  }),
};
