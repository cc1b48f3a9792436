/**
 * The Slack channel: the message goes to an incoming webhook as Block Kit (a header, the body in
 * sections of at most 3,000 characters, the inline table as a code block, the links), within
 * Slack's limits (50 blocks, 150-character header, 40,000-character fallback text). With a bot
 * token and a channel, the result file is uploaded with Slack's external upload flow
 * (files.getUploadURLExternal, the bytes, files.completeUploadExternal).
 */
import { validationFailed } from '../../core/errors.js';
import { ChannelSendError, type ChannelContext, type ChannelMessage, type ChannelPlugin } from '../../domain/plugins/channel.js';
import { checkAnswer, urlProblem } from '../shared/http-answer.js';
import { textTable } from '../shared/text-table.js';
import { slackManifest } from './manifest.js';

export const SLACK_LIMITS = { blocks: 50, sectionText: 3000, header: 150, text: 40_000 };

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The Block Kit payload of a message. */
export function slackPayload(m: ChannelMessage): { text: string; blocks: Array<Record<string, unknown>> } {
  const blocks: Array<Record<string, unknown>> = [{ type: 'header', text: { type: 'plain_text', text: clip(m.subject || m.facts.reportTitle, SLACK_LIMITS.header) } }];
  const body = escape(m.body);
  for (let i = 0; i < body.length; i += SLACK_LIMITS.sectionText) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: body.slice(i, i + SLACK_LIMITS.sectionText) } });
  }
  const tail: Array<Record<string, unknown>> = [];
  if (m.table) {
    const more = m.table.totalRows > m.table.rows.length ? `\n… ${m.table.totalRows - m.table.rows.length} more rows` : '';
    const code = clip(escape(textTable(m.table.columns, m.table.rows, 30)), SLACK_LIMITS.sectionText - 8 - more.length);
    tail.push({ type: 'section', text: { type: 'mrkdwn', text: `\`\`\`${code}\`\`\`${more}` } });
  }
  const links = [`<${m.facts.runUrl}|Open the run in Herald>`];
  if (m.link) links.unshift(`<${m.link.url}|Download the result> (until ${m.link.expiresAt.toISOString().slice(0, 10)})`);
  tail.push({ type: 'context', elements: [{ type: 'mrkdwn', text: links.join(' · ') }] });
  // Keep within 50 blocks: the body's sections give way, the last one saying so.
  const room = SLACK_LIMITS.blocks - tail.length;
  if (blocks.length > room) {
    blocks.length = room;
    const last = blocks[room - 1] as { text: { text: string } };
    last.text.text = `${last.text.text.slice(0, SLACK_LIMITS.sectionText - 1)}…`;
  }
  return { text: clip(`${m.subject}\n${m.body}`, SLACK_LIMITS.text), blocks: [...blocks, ...tail] };
}

async function slackApi(settings: Record<string, unknown>, method: string, body: Record<string, unknown>, ctx: ChannelContext): Promise<Record<string, unknown>> {
  const base = ((settings.api_base_url as string | undefined) ?? 'https://slack.com/api').replace(/\/+$/, '');
  const res = await ctx.http.request({
    method: 'POST', url: `${base}/${method}`,
    headers: { authorization: `Bearer ${settings.bot_token as string}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))).toString(),
  }, ctx.signal);
  checkAnswer(res, `Slack ${method}`, ctx.now());
  let answer: Record<string, unknown>;
  try { answer = JSON.parse(res.body) as Record<string, unknown>; } catch { throw new ChannelSendError('delivery.peer_error', `Slack ${method} answered something that is not JSON`, { transient: true, statusCode: res.status }); }
  if (answer.ok !== true) {
    const error = String(answer.error ?? 'unknown_error');
    const transient = error === 'ratelimited' || error === 'internal_error' || error === 'service_unavailable';
    const code = ['invalid_auth', 'not_authed', 'token_revoked', 'account_inactive'].includes(error) ? 'delivery.auth_failed' : transient ? 'delivery.peer_error' : 'delivery.rejected';
    throw new ChannelSendError(code, `Slack ${method} refused: ${error.slice(0, 100)}`, { transient, statusCode: res.status });
  }
  return answer;
}

export const slackChannel: ChannelPlugin = {
  manifest: slackManifest,
  deliverySchema: { type: 'object', additionalProperties: false, properties: {} },
  validate(settings, http) {
    for (const field of ['webhook_url', 'api_base_url'] as const) {
      const problem = urlProblem(settings[field], (u) => http.allowsHost(u));
      if (problem) throw validationFailed([{ field: `settings.${field}`, code: 'validation.format', message: problem }]);
    }
    if (settings.bot_token && !settings.channel) {
      throw validationFailed([{ field: 'settings.channel', code: 'validation.required', message: 'is needed with a bot token (the channel files are uploaded to)' }]);
    }
  },
  testTarget: () => ({}),
  async send(settings, _target, message, ctx) {
    const res = await ctx.http.request({
      method: 'POST', url: settings.webhook_url as string, headers: { 'content-type': 'application/json' }, body: JSON.stringify(slackPayload(message)),
    }, ctx.signal);
    checkAnswer(res, 'The Slack webhook', ctx.now());
    if (!message.attachment) return { statusCode: res.status, peerMessageId: null, detail: `HTTP ${res.status}` };
    if (!settings.bot_token || !settings.channel) {
      throw new ChannelSendError('delivery.invalid', 'Uploading a file to Slack needs a bot token and a channel id on the channel', { transient: false });
    }
    const file = message.attachment;
    const slot = await slackApi(settings, 'files.getUploadURLExternal', { filename: file.filename, length: String(file.content.length) }, ctx);
    const upload = await ctx.http.request({ method: 'POST', url: slot.upload_url as string, headers: { 'content-type': file.contentType }, body: file.content }, ctx.signal);
    checkAnswer(upload, 'The Slack upload', ctx.now());
    await slackApi(settings, 'files.completeUploadExternal', { files: [{ id: slot.file_id, title: file.filename }], channel_id: settings.channel as string }, ctx);
    return { statusCode: res.status, peerMessageId: String(slot.file_id), detail: `message and ${file.filename} sent` };
  },
};
