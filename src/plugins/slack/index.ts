/**
 * The Slack channel: the message goes to an incoming webhook as Block Kit (a header, the body in
 * sections of at most 3,000 characters, the inline table as a code block, the links in a section),
 * within Slack's limits (50 blocks, 150-character header, 40,000-character fallback text, which is
 * the subject). Text is escaped (&, <, >) and never cut inside an entity. With a bot token and a
 * channel, the result file is uploaded with Slack's external upload flow
 * (files.getUploadURLExternal, the bytes, files.completeUploadExternal).
 */
import { validationFailed } from '../../core/errors.js';
import { ChannelSendError, type ChannelContext, type ChannelMessage, type ChannelPlugin } from '../../domain/plugins/channel.js';
import { checkAnswer, timeBudget, urlProblem } from '../shared/http-answer.js';
import { textTable } from '../shared/text-table.js';
import { slackManifest } from './manifest.js';

/** Slack's limits: blocks per message, characters per section, header and fallback text. */
export const SLACK_LIMITS = { blocks: 50, sectionText: 3000, header: 150, text: 40_000 };

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Where escaped mrkdwn text may be cut at or before `max`: never inside an entity (&amp;, &lt;,
 * &gt;) or a surrogate pair, at a line break in the last 10 % when there is one.
 */
function cutAt(s: string, start: number, max: number, preferLine: boolean): number {
  let end = start + max;
  if (end >= s.length) return s.length;
  if (preferLine) {
    const nl = s.lastIndexOf('\n', end - 1);
    if (nl >= end - Math.floor(max / 10) && nl > start) return nl + 1;
  }
  const amp = s.lastIndexOf('&', end - 1);
  if (amp > start && amp >= end - 4 && s.indexOf(';', amp) >= end) end = amp;
  const code = s.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff && end - 1 > start) end -= 1;
  return end;
}

/** Escaped text cut to at most `max` characters, "…" marking a cut. */
const clipEscaped = (s: string, max: number) => (s.length > max ? `${s.slice(0, cutAt(s, 0, max - 1, false))}…` : s);

/** Escaped text in pieces of at most `max` characters. */
function pieces(s: string, max: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length;) {
    const end = cutAt(s, i, max, true);
    out.push(s.slice(i, end));
    i = end;
  }
  return out;
}

/** A URL inside <url|label>: the characters that would end the link percent-encoded. */
const linkUrl = (url: string) => url.replace(/[|<>]/g, (c) => encodeURIComponent(c));

/** The inline table as a code block of whole lines within a section's limit. */
function tableSection(table: NonNullable<ChannelMessage['table']>): string {
  const lines = escape(textTable(table.columns, table.rows, 30)).split('\n');
  const hidden = table.totalRows - table.rows.length;
  const room = SLACK_LIMITS.sectionText - 6 - 40; // the fences and the "… n more rows" line
  let shown = 0;
  let size = 0;
  while (shown < lines.length && size + lines[shown]!.length + 1 <= room) size += lines[shown++]!.length + 1;
  // The header row alone may be wider than a section: then it is cut.
  const code = shown === 0 ? clipEscaped(lines[0]!, room) : lines.slice(0, shown).join('\n');
  const dataShown = Math.max(0, shown - 2);
  const more = hidden + (table.rows.length - dataShown);
  return `\`\`\`${code}\`\`\`${more > 0 ? `\n… ${more} more rows` : ''}`;
}

/** The Block Kit payload of a message. */
export function slackPayload(m: ChannelMessage): { text: string; blocks: Array<Record<string, unknown>> } {
  const subject = m.subject || m.facts.reportTitle;
  const header = { type: 'header', text: { type: 'plain_text', text: subject.length > SLACK_LIMITS.header ? `${subject.slice(0, cutAt(subject, 0, SLACK_LIMITS.header - 1, false))}…` : subject } };
  const sections = pieces(escape(m.body), SLACK_LIMITS.sectionText).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } }));
  const tail: Array<Record<string, unknown>> = [];
  if (m.table) tail.push({ type: 'section', text: { type: 'mrkdwn', text: tableSection(m.table) } });
  const links = [`<${linkUrl(m.facts.runUrl)}|Open the run in Herald>`];
  if (m.link) links.unshift(`<${linkUrl(m.link.url)}|Download the result> (until ${m.link.expiresAt.toISOString().slice(0, 10)})`);
  tail.push({ type: 'section', text: { type: 'mrkdwn', text: links.join('\n') } });
  // Keep within 50 blocks: the body's sections give way, the last one kept ending in "…".
  const room = SLACK_LIMITS.blocks - 1 - tail.length;
  if (sections.length > room) {
    sections.length = room;
    const last = sections[room - 1]!.text;
    last.text = `${last.text.slice(0, cutAt(last.text, 0, SLACK_LIMITS.sectionText - 1, false))}…`;
  }
  return { text: clipEscaped(escape(subject), SLACK_LIMITS.text), blocks: [header, ...sections, ...tail] };
}

async function slackApi(settings: Record<string, unknown>, method: string, body: Record<string, unknown>, ctx: ChannelContext, left: () => number): Promise<Record<string, unknown>> {
  const base = ((settings.api_base_url as string | undefined) ?? 'https://slack.com/api').replace(/\/+$/, '');
  const res = await ctx.http.request({
    method: 'POST', url: `${base}/${method}`,
    headers: { authorization: `Bearer ${settings.bot_token as string}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))).toString(),
    timeoutMs: left(),
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
  checkDelivery({ attach }, channelSettings) {
    return attach !== null && !channelSettings.bot_token
      ? [{ field: 'settings.attach', code: 'delivery.channel_cannot', message: 'the Slack channel needs a bot token and a channel to upload files' }]
      : [];
  },
  testTarget: () => ({}),
  async send(settings, _target, message, ctx) {
    // Checked before anything is posted: a message must not go out for an attempt that then fails.
    if (message.attachment && (!settings.bot_token || !settings.channel)) {
      throw new ChannelSendError('delivery.invalid', 'Uploading a file to Slack needs a bot token and a channel id on the channel', { transient: false });
    }
    const left = timeBudget(ctx);
    const res = await ctx.http.request({
      method: 'POST', url: settings.webhook_url as string, headers: { 'content-type': 'application/json' }, body: JSON.stringify(slackPayload(message)), timeoutMs: left(),
    }, ctx.signal);
    checkAnswer(res, 'The Slack webhook', ctx.now());
    if (!message.attachment) return { statusCode: res.status, peerMessageId: null, detail: `HTTP ${res.status}` };
    const file = message.attachment;
    const slot = await slackApi(settings, 'files.getUploadURLExternal', { filename: file.filename, length: String(file.content.length) }, ctx, left);
    if (typeof slot.upload_url !== 'string' || typeof slot.file_id !== 'string') {
      throw new ChannelSendError('delivery.peer_error', 'Slack files.getUploadURLExternal answered without upload_url or file_id', { transient: true, statusCode: 200 });
    }
    const upload = await ctx.http.request({ method: 'POST', url: slot.upload_url as string, headers: { 'content-type': file.contentType }, body: file.content, timeoutMs: left() }, ctx.signal);
    checkAnswer(upload, 'The Slack upload', ctx.now());
    await slackApi(settings, 'files.completeUploadExternal', { files: [{ id: slot.file_id, title: file.filename }], channel_id: settings.channel as string }, ctx, left);
    return { statusCode: res.status, peerMessageId: slot.file_id, detail: `message and ${file.filename} sent` };
  },
};
