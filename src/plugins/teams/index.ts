/**
 * The Microsoft Teams channel: an Adaptive Card (version 1.4) posted to a Teams workflow webhook,
 * with the subject, the body, the inline table as a Table element and buttons to the run and the
 * download link. The payload stays under Teams' 28 KB limit: the table's rows give way first,
 * then the body, then the subject (each cut to the most that fits).
 */
import { validationFailed } from '../../core/errors.js';
import { ChannelSendError, type ChannelMessage, type ChannelPlugin } from '../../domain/plugins/channel.js';
import { checkAnswer, urlProblem } from '../shared/http-answer.js';
import { cellText } from '../shared/text-table.js';
import { teamsManifest } from './manifest.js';

export const TEAMS_MAX_BYTES = 28 * 1024;
const MAX_TABLE_ROWS = 50;

/** Text cut to `chars` characters (never inside a surrogate pair), "…" marking a cut. */
function clip(s: string, chars: number): string {
  if (s.length <= chars) return s;
  const code = s.charCodeAt(chars - 1);
  const end = chars > 0 && code >= 0xd800 && code <= 0xdbff ? chars - 1 : chars;
  return `${s.slice(0, end)}…`;
}

function card(m: ChannelMessage, rows: number, bodyChars: number, subjectChars: number): Record<string, unknown> {
  const body: Array<Record<string, unknown>> = [
    { type: 'TextBlock', text: clip(m.subject, subjectChars), weight: 'Bolder', size: 'Medium', wrap: true },
  ];
  if (m.body) body.push({ type: 'TextBlock', text: clip(m.body, bodyChars), wrap: true });
  if (m.table && rows > 0) {
    const cell = (text: string, bold = false) => ({ type: 'TableCell', items: [{ type: 'TextBlock', text, wrap: true, ...(bold ? { weight: 'Bolder' } : {}) }] });
    const shown = m.table.rows.slice(0, rows);
    body.push({
      type: 'Table', firstRowAsHeader: true, columns: m.table.columns.map(() => ({ width: 1 })),
      rows: [
        { type: 'TableRow', cells: m.table.columns.map((c) => cell(c, true)) },
        ...shown.map((r) => ({ type: 'TableRow', cells: r.map((v) => cell(cellText(v))) })),
      ],
    });
  }
  if (m.table && m.table.totalRows > rows) {
    body.push({ type: 'TextBlock', text: `… ${m.table.totalRows - rows} more rows`, isSubtle: true, wrap: true });
  }
  const actions: Array<Record<string, unknown>> = [{ type: 'Action.OpenUrl', title: 'Open run', url: m.facts.runUrl }];
  if (m.link) actions.push({ type: 'Action.OpenUrl', title: 'Download', url: m.link.url });
  return {
    type: 'message',
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      content: { type: 'AdaptiveCard', $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', version: '1.4', body, actions },
    }],
  };
}

/** The largest n in [0, max] for which fits(n) holds (fits is monotonic), or -1. */
function largest(max: number, fits: (n: number) => boolean): number {
  if (fits(max)) return max;
  if (!fits(0)) return -1;
  let lo = 0;
  let hi = max;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The payload within Teams' size limit: as many table rows as fit (at most 50) with the whole
 * body; without the table, as much of the body as fits; then as much of the subject.
 */
export function teamsPayload(m: ChannelMessage): string {
  const text = (rows: number, bodyChars: number, subjectChars: number) => JSON.stringify(card(m, rows, bodyChars, subjectChars));
  const fits = (rows: number, bodyChars: number, subjectChars: number) => Buffer.byteLength(text(rows, bodyChars, subjectChars)) <= TEAMS_MAX_BYTES;
  const full = { body: m.body.length, subject: m.subject.length };
  const rows = largest(Math.min(m.table?.rows.length ?? 0, MAX_TABLE_ROWS), (n) => fits(n, full.body, full.subject));
  if (rows >= 0) return text(rows, full.body, full.subject);
  const bodyChars = largest(full.body, (n) => fits(0, n, full.subject));
  if (bodyChars >= 0) return text(0, bodyChars, full.subject);
  const subjectChars = largest(full.subject, (n) => fits(0, 0, n));
  if (subjectChars >= 0) return text(0, 0, subjectChars);
  throw new ChannelSendError('delivery.invalid', `The Teams card does not fit in ${TEAMS_MAX_BYTES} bytes even without its text (the run or link URL is too long)`, { transient: false });
}

export const teamsChannel: ChannelPlugin = {
  manifest: teamsManifest,
  deliverySchema: { type: 'object', additionalProperties: false, properties: {} },
  validate(settings, http) {
    const problem = urlProblem(settings.webhook_url, (u) => http.allowsHost(u));
    if (problem) throw validationFailed([{ field: 'settings.webhook_url', code: 'validation.format', message: problem }]);
  },
  testTarget: () => ({}),
  async send(settings, _target, message, ctx) {
    const res = await ctx.http.request({
      method: 'POST', url: settings.webhook_url as string, headers: { 'content-type': 'application/json' }, body: teamsPayload(message), timeoutMs: ctx.timeoutMs,
    }, ctx.signal);
    checkAnswer(res, 'The Teams workflow', ctx.now());
    return { statusCode: res.status, peerMessageId: null, detail: `HTTP ${res.status}` };
  },
};
