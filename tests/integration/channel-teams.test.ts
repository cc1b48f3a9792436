/**
 * The Teams channel plugin against a loopback stand-in for a Teams workflow webhook, through the
 * guarded client: the Adaptive Card 1.4 (subject, body, the table's cells, the buttons), the
 * 28 KB cap (rows give way first, then the body, then the subject) and the answers' mapping.
 */
import { createOutboundHttp } from '../../src/infra/outbound/http.js';
import type { DomainError } from '../../src/core/errors.js';
import { ChannelSendError } from '../../src/domain/plugins/channel.js';
import { TEAMS_MAX_BYTES, teamsChannel, teamsPayload } from '../../src/plugins/teams/index.js';
import { channelContext, sampleMessage } from '../support/channel-message.js';
import { httpPeer, type HttpPeer } from '../support/peers.js';

interface TextBlock { type: string; text: string; weight?: string; size?: string; wrap?: boolean; isSubtle?: boolean }
interface Table { type: 'Table'; firstRowAsHeader: boolean; columns: unknown[]; rows: Array<{ type: string; cells: Array<{ type: string; items: TextBlock[] }> }> }
interface Card {
  type: string;
  attachments: Array<{ contentType: string; content: { type: string; $schema: string; version: string; body: TextBlock[]; actions: Array<{ type: string; title: string; url: string }> } }>;
}

const http = createOutboundHttp({ allow: ['127.0.0.1'] });
let teams: HttpPeer;
let url: string;

beforeAll(async () => {
  teams = await httpPeer();
  teams.fallback = { status: 202, body: '' };
  url = `${teams.url}/workflows/abc/triggers/manual/paths/invoke?api-version=1&sig=secret-sig`;
});
afterAll(async () => {
  http.close();
  await teams.close();
});
beforeEach(() => {
  teams.requests.length = 0;
  teams.script.length = 0;
});

const cardOf = (text: string) => (JSON.parse(text) as Card).attachments[0]!.content;
const tableOf = (text: string) => cardOf(text).body.find((b) => b.type === 'Table') as unknown as Table | undefined;
const cells = (table: Table) => table.rows.map((r) => r.cells.map((c) => c.items[0]!.text));

describe('the card', () => {
  it('posts an Adaptive Card 1.4 with the subject, body, table cells and buttons', async () => {
    const message = sampleMessage({ link: { url: 'https://herald.example.com/r/tok', expiresAt: new Date('2025-04-01T00:00:00.000Z') } });
    const outcome = await teamsChannel.send({ webhook_url: url }, {}, message, channelContext(http));
    expect(outcome).toEqual({ statusCode: 202, peerMessageId: null, detail: 'HTTP 202' });
    const req = teams.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    const payload = JSON.parse(req.body) as Card;
    expect(payload.type).toBe('message');
    expect(payload.attachments).toHaveLength(1);
    expect(payload.attachments[0]!.contentType).toBe('application/vnd.microsoft.card.adaptive');
    const card = payload.attachments[0]!.content;
    expect(card).toMatchObject({ type: 'AdaptiveCard', $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', version: '1.4' });
    expect(card.body[0]).toEqual({ type: 'TextBlock', text: 'Daily sales: 3 rows', weight: 'Bolder', size: 'Medium', wrap: true });
    expect(card.body[1]).toEqual({ type: 'TextBlock', text: 'Hello team,\nhere are the sales.', wrap: true });
    const table = tableOf(req.body)!;
    expect(table).toMatchObject({ type: 'Table', firstRowAsHeader: true, columns: [{ width: 1 }, { width: 1 }] });
    expect(table.rows.every((r) => r.type === 'TableRow' && r.cells.every((c) => c.type === 'TableCell' && c.items[0]!.type === 'TextBlock'))).toBe(true);
    expect(cells(table)).toEqual([['region', 'total'], ['EU', '12.5'], ['US', '7'], ['<b>&', '']]);
    expect(card.body).toHaveLength(3);
    expect(card.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Open run', url: 'https://herald.example.com/runs/run_1' },
      { type: 'Action.OpenUrl', title: 'Download', url: 'https://herald.example.com/r/tok' },
    ]);
  });

  it('shows at most 50 rows and says how many more there are', () => {
    const rows = Array.from({ length: 100 }, (_, i) => [i, `r${i}`]);
    const text = teamsPayload(sampleMessage({ table: { columns: ['n', 'r'], rows, totalRows: 1000 } }));
    expect(tableOf(text)!.rows).toHaveLength(51);
    expect(cardOf(text).body.at(-1)).toMatchObject({ type: 'TextBlock', text: '… 950 more rows', isSubtle: true });
    expect(cardOf(text).actions).toHaveLength(1);
  });

  it('stays under 28 KB: the table gives way first, as few rows as needed', () => {
    const rows = Array.from({ length: 50 }, (_, i) => [i, 'x'.repeat(900)]);
    const text = teamsPayload(sampleMessage({ table: { columns: ['n', 'wide'], rows, totalRows: 50 } }));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
    const shown = tableOf(text)!.rows.length - 1;
    expect(shown).toBeGreaterThan(20);
    expect(shown).toBeLessThan(50);
    // One more row would not have fitted.
    expect(Buffer.byteLength(text) + 900).toBeGreaterThan(TEAMS_MAX_BYTES);
    expect(cardOf(text).body[1]!.text).toBe('Hello team,\nhere are the sales.');
    expect(cardOf(text).body.at(-1)!.text).toBe(`… ${50 - shown} more rows`);
  });

  it('stays under 28 KB with a huge body: no table, the body cut with "…"', async () => {
    const body = 'word '.repeat(40_000);
    await teamsChannel.send({ webhook_url: url }, {}, sampleMessage({ body }), channelContext(http));
    const text = teams.requests[0]!.body;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
    expect(Buffer.byteLength(text)).toBeGreaterThan(TEAMS_MAX_BYTES - 100);
    const card = cardOf(text);
    expect(tableOf(text)).toBeUndefined();
    expect(card.body[1]!.text.endsWith('…')).toBe(true);
    expect(body.startsWith(card.body[1]!.text.slice(0, -1))).toBe(true);
    expect(card.body.at(-1)!.text).toBe('… 3 more rows');
    expect(card.actions[0]!.title).toBe('Open run');
  });

  it('counts bytes, not characters, and never splits a character', () => {
    const text = teamsPayload(sampleMessage({ body: '😀'.repeat(20_000), table: null }));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
    const shown = cardOf(text).body[1]!.text;
    expect(shown).toMatch(/^(😀)+…$/u);
  });

  it('cuts even a huge subject rather than giving up', () => {
    const text = teamsPayload(sampleMessage({ subject: 's'.repeat(50_000), body: 'b'.repeat(50_000) }));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
    const card = cardOf(text);
    expect(card.body[0]!.text.endsWith('…')).toBe(true);
    expect(card.body[1]!.text).toBe('…');
  });
});

describe('answers', () => {
  it('maps a 500 to transient and a 400 to permanent, without the URL\'s signature', async () => {
    teams.script.push({ status: 500, body: 'workflow failed' });
    const down = await teamsChannel.send({ webhook_url: url }, {}, sampleMessage(), channelContext(http)).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(ChannelSendError);
    expect(down).toMatchObject({ code: 'delivery.peer_error', options: { transient: true, statusCode: 500 } });
    expect((down as Error).message).toContain('workflow failed');
    teams.script.push({ status: 400, body: '{"error":{"code":"InvalidRequestContent"}}' });
    const bad = await teamsChannel.send({ webhook_url: url }, {}, sampleMessage(), channelContext(http)).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'delivery.rejected', options: { transient: false, statusCode: 400 } });
    for (const err of [down, bad] as Error[]) {
      expect(err.message).not.toContain('secret-sig');
      expect(err.message).not.toContain('/workflows');
    }
  });

  it('accepts a 200 as well as a 202', async () => {
    teams.script.push({ status: 200, body: '' });
    expect(await teamsChannel.send({ webhook_url: url }, {}, sampleMessage(), channelContext(http))).toMatchObject({ statusCode: 200 });
  });
});

describe('validate', () => {
  it('wants an https URL unless the host is allowed', () => {
    const problems = (webhook_url: string, allowed: boolean) => {
      try {
        teamsChannel.validate({ webhook_url }, { allowsHost: () => allowed });
        return [];
      } catch (err) {
        return (err as DomainError).extras.errors ?? [];
      }
    };
    expect(problems('https://prod-1.westeurope.logic.azure.com/workflows/x', false)).toEqual([]);
    expect(problems('http://prod-1.westeurope.logic.azure.com/workflows/x', false)).toEqual([expect.objectContaining({ field: 'settings.webhook_url', code: 'validation.format' })]);
    expect(problems('http://teams-stand-in/x', true)).toEqual([]);
    expect(teamsChannel.testTarget('a@example.com')).toEqual({});
  });
});
