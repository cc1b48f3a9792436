/**
 * The webhook channel: a JSON POST to any https URL, signed per Standard Webhooks
 * (https://www.standardwebhooks.com): webhook-id (the delivery attempt's id, the same on every
 * resend, so receivers drop duplicates), webhook-timestamp (unix seconds) and webhook-signature
 * ("v1," + base64 HMAC-SHA256 over "id.timestamp.body" with the secret's bytes).
 */
import { createHmac } from 'node:crypto';
import { validationFailed } from '../../core/errors.js';
import type { ChannelMessage, ChannelPlugin } from '../../domain/plugins/channel.js';
import { checkAnswer, urlProblem } from '../shared/http-answer.js';
import { webhookManifest } from './manifest.js';

/** Headers Herald sets itself (or that would break the request); webhook-* is Standard Webhooks' own. */
const RESERVED = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection']);
/** An HTTP header name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/** What an HTTP header value may hold (no line breaks or control characters; Latin-1 at most). */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Why a custom header cannot be sent, or null (the message names no value: values are secret). */
export function headerProblem(name: string, value: unknown): string | null {
  if (!TOKEN.test(name)) return 'is not a valid header name';
  const lower = name.toLowerCase();
  if (RESERVED.has(lower) || lower.startsWith('webhook-')) return 'is set by Herald itself';
  if (typeof value !== 'string' || !VALUE.test(value)) return 'has a value with line breaks or characters a header cannot carry';
  return null;
}

/** The Standard Webhooks signature of a body. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export function webhookBody(message: ChannelMessage, messageId: string, now: Date): string {
  const f = message.facts;
  const a = message.alert;
  if (a) {
    return JSON.stringify({
      type: 'system.alert', id: messageId, timestamp: now.toISOString(),
      alert: {
        event: a.event, kind: a.kind, fingerprint: a.fingerprint, severity: a.severity, message: a.message,
        since: a.since.toISOString(), resolved_at: a.resolvedAt?.toISOString() ?? null, resource: a.resource,
      },
      subject: message.subject, body: message.body,
    });
  }
  return JSON.stringify({
    type: 'report.delivered',
    id: messageId,
    timestamp: now.toISOString(),
    report: { id: f.reportId, title: f.reportTitle },
    run: { id: f.runId, status: f.runStatus, trigger: f.trigger, row_count: f.rowCount, created_at: f.runAt.toISOString(), url: f.runUrl },
    subject: message.subject,
    body: message.body,
    table: message.table ? { columns: message.table.columns, rows: message.table.rows, total_rows: message.table.totalRows } : null,
    link: message.link ? { url: message.link.url, expires_at: message.link.expiresAt.toISOString() } : null,
    attachment: message.attachment
      ? { filename: message.attachment.filename, content_type: message.attachment.contentType, content_base64: message.attachment.content.toString('base64') }
      : null,
  });
}

export const webhookChannel: ChannelPlugin = {
  manifest: webhookManifest,
  deliverySchema: { type: 'object', additionalProperties: false, properties: {} },
  validate(settings, http) {
    const problem = urlProblem(settings.url, (u) => http.allowsHost(u));
    if (problem) throw validationFailed([{ field: 'settings.url', code: 'validation.format', message: problem }]);
    const problems = Object.entries((settings.headers as Record<string, unknown> | undefined) ?? {}).flatMap(([name, value]) => {
      const problem = headerProblem(name, value);
      return problem ? [{ field: `settings.headers.${name}`, code: 'validation.invalid' as const, message: problem }] : [];
    });
    if (problems.length > 0) throw validationFailed(problems);
  },
  testTarget: () => ({}),
  async send(settings, _target, message, ctx) {
    const now = ctx.now();
    const body = webhookBody(message, ctx.messageId, now);
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers: Record<string, string> = {
      ...((settings.headers as Record<string, string> | undefined) ?? {}),
      'content-type': 'application/json',
      'webhook-id': ctx.messageId,
      'webhook-timestamp': String(timestamp),
    };
    if (typeof settings.signing_secret === 'string') headers['webhook-signature'] = signWebhook(settings.signing_secret, ctx.messageId, timestamp, body);
    // Redirected to another origin, the message keeps its signature (the receiver verifies it
    // there) but not the channel's own headers, which may hold a token.
    const res = await ctx.http.request({
      method: 'POST', url: settings.url as string, headers, body, timeoutMs: ctx.timeoutMs,
      crossOriginHeaders: ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'],
      refuseCrossOrigin: settings.cross_origin_redirects === 'refuse',
    }, ctx.signal);
    checkAnswer(res, 'The webhook', now);
    return { statusCode: res.status, peerMessageId: null, detail: `HTTP ${res.status}` };
  },
};
