/**
 * The email channel: SMTP through nodemailer. The message has a plain-text part and an HTML part
 * (every value escaped), the inline table in both, and the result file as an attachment. The
 * Message-ID is the delivery attempt's id, the same on every resend.
 *
 * SMTP is not behind the outbound address guard: an internal relay is the usual target, and only
 * admins configure channels. Failures: 5xx replies (an unknown mailbox, a refused sender) are
 * permanent, 4xx replies and connection problems transient, a refused login delivery.auth_failed.
 */
import { ChannelSendError, type ChannelMessage, type ChannelPlugin } from '../../domain/plugins/channel.js';
import { emailManifest } from './manifest.js';
import { cellText, textTable } from '../shared/text-table.js';

const ADDRESS = { type: 'string', format: 'email', maxLength: 320 } as const;
const LIST = { type: 'array', items: ADDRESS, maxItems: 50, uniqueItems: true } as const;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]!));

function textOf(m: ChannelMessage): string {
  const parts = [m.body];
  if (m.table) parts.push(textTable(m.table.columns, m.table.rows) + (m.table.totalRows > m.table.rows.length ? `\n… ${m.table.totalRows - m.table.rows.length} more rows` : ''));
  if (m.link) parts.push(`Download: ${m.link.url} (until ${m.link.expiresAt.toISOString()})`);
  parts.push(`Run: ${m.facts.runUrl}`);
  return parts.join('\n\n');
}

function htmlOf(m: ChannelMessage): string {
  const paragraphs = m.body.split(/\n{2,}/).map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('\n');
  let table = '';
  if (m.table) {
    const head = m.table.columns.map((c) => `<th style="text-align:left;border-bottom:1px solid #ccc;padding:4px 8px">${escapeHtml(c)}</th>`).join('');
    const rows = m.table.rows.map((r) => `<tr>${r.map((v) => `<td style="padding:4px 8px">${escapeHtml(cellText(v))}</td>`).join('')}</tr>`).join('\n');
    const more = m.table.totalRows > m.table.rows.length ? `<p>… ${m.table.totalRows - m.table.rows.length} more rows</p>` : '';
    table = `<table style="border-collapse:collapse;font-family:monospace"><thead><tr>${head}</tr></thead><tbody>\n${rows}\n</tbody></table>${more}`;
  }
  const link = m.link ? `<p><a href="${escapeHtml(m.link.url)}">Download the result</a> (until ${escapeHtml(m.link.expiresAt.toISOString())})</p>` : '';
  return `<!doctype html><html><body>\n${paragraphs}\n${table}\n${link}\n<p><a href="${escapeHtml(m.facts.runUrl)}">Open the run in Herald</a></p></body></html>`;
}

function failureOf(err: Error & { code?: string; responseCode?: number; response?: string }, host: string): ChannelSendError {
  const reply = err.response ? `: ${err.response.replace(/\s+/g, ' ').slice(0, 200)}` : '';
  if (err.code === 'EAUTH') return new ChannelSendError('delivery.auth_failed', `The SMTP server ${host} refused the login${reply}`, { transient: false, statusCode: err.responseCode ?? null });
  if (typeof err.responseCode === 'number') {
    const transient = err.responseCode < 500;
    return new ChannelSendError(transient ? 'delivery.peer_error' : 'delivery.rejected', `The SMTP server ${host} answered ${err.responseCode}${reply}`, { transient, statusCode: err.responseCode });
  }
  if (err.code === 'ETIMEDOUT') return new ChannelSendError('delivery.timeout', `The SMTP server ${host} did not answer in time`, { transient: true });
  return new ChannelSendError('delivery.unreachable', `The SMTP server ${host} could not be reached (${err.code ?? 'connection error'})`, { transient: true });
}

export const emailChannel: ChannelPlugin = {
  manifest: emailManifest,
  deliverySchema: { type: 'object', additionalProperties: false, properties: { to: LIST, cc: LIST, bcc: LIST } },
  validate: () => undefined,
  checkDelivery({ target }) {
    const count = ['to', 'cc', 'bcc'].reduce((n, k) => n + ((target[k] as unknown[] | undefined)?.length ?? 0), 0);
    return count > 0 ? [] : [{ field: 'settings.to', code: 'validation.required', message: 'an email delivery needs at least one recipient in to, cc or bcc' }];
  },
  testTarget: (email) => ({ to: [email] }),
  recipientsOf: (target) => ['to', 'cc', 'bcc'].flatMap((k) => (target[k] as string[] | undefined) ?? []),
  async send(settings, target, message, ctx) {
    const host = settings.host as string;
    const tls = (settings.tls as string | undefined) ?? 'starttls';
    const { default: nodemailer } = await import('nodemailer'); // on the first send: most API processes never send mail
    const transport = nodemailer.createTransport({
      host, port: (settings.port as number | undefined) ?? 587,
      secure: tls === 'tls', requireTLS: tls === 'starttls', ignoreTLS: tls === 'none',
      ...(settings.username ? { auth: { user: settings.username as string, pass: (settings.password as string | undefined) ?? '' } } : {}),
      connectionTimeout: ctx.timeoutMs, greetingTimeout: ctx.timeoutMs, socketTimeout: ctx.timeoutMs,
    });
    const onAbort = () => transport.close();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const messageId = `<${ctx.messageId}@herald>`;
    try {
      const info = await transport.sendMail({
        from: settings.from as string,
        to: (target.to as string[] | undefined) ?? [], cc: (target.cc as string[] | undefined) ?? [], bcc: (target.bcc as string[] | undefined) ?? [],
        subject: message.subject, text: textOf(message), html: htmlOf(message), messageId,
        headers: { 'X-Herald-Run': message.facts.runId },
        attachments: message.attachment ? [{ filename: message.attachment.filename, content: message.attachment.content, contentType: message.attachment.contentType }] : [],
      });
      const code = /^(\d{3})/.exec(info.response ?? '')?.[1];
      return { statusCode: code ? Number(code) : 250, peerMessageId: info.messageId ?? messageId, detail: (info.response ?? '').slice(0, 200) || null };
    } catch (err) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw failureOf(err as Error, host);
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      transport.close();
    }
  },
};
