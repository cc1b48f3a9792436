/**
 * The Microsoft Teams channel: an Adaptive Card (version 1.4) posted to a Teams workflow webhook,
 * with the subject, the body, the inline table as a Table element and buttons to the run and the
 * download link. The payload stays under Teams' 28 KB limit: the table's rows give way first,
 * then the body.
 */
import { validationFailed } from '../../core/errors.js';
import type { ChannelMessage, ChannelPlugin } from '../../domain/plugins/channel.js';
import { checkAnswer, urlProblem } from '../shared/http-answer.js';
import { cellText } from '../shared/text-table.js';
import { teamsManifest } from './manifest.js';

export const TEAMS_MAX_BYTES = 28 * 1024;
const MAX_TABLE_ROWS = 50;

function card(m: ChannelMessage, rows: number, bodyChars: number): Record<string, unknown> {
  const body: Array<Record<string, unknown>> = [
    { type: 'TextBlock', text: m.subject, weight: 'Bolder', size: 'Medium', wrap: true },
    { type: 'TextBlock', text: m.body.length > bodyChars ? `${m.body.slice(0, bodyChars)}…` : m.body, wrap: true },
  ];
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
    if (m.table.totalRows > shown.length) body.push({ type: 'TextBlock', text: `… ${m.table.totalRows - shown.length} more rows`, isSubtle: true, wrap: true });
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

/** The payload within Teams' size limit. */
export function teamsPayload(m: ChannelMessage): string {
  let rows = Math.min(m.table?.rows.length ?? 0, MAX_TABLE_ROWS);
  let bodyChars = m.body.length;
  for (;;) {
    const text = JSON.stringify(card(m, rows, bodyChars));
    if (Buffer.byteLength(text) <= TEAMS_MAX_BYTES) return text;
    if (rows > 0) rows = Math.floor(rows / 2);
    else bodyChars = Math.floor(bodyChars / 2);
  }
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
    const res = await ctx.http.request({ method: 'POST', url: settings.webhook_url as string, headers: { 'content-type': 'application/json' }, body: teamsPayload(message) }, ctx.signal);
    checkAnswer(res, 'The Teams workflow', ctx.now());
    return { statusCode: res.status, peerMessageId: null, detail: `HTTP ${res.status}` };
  },
};
