/**
 * The Slack channel plugin against a loopback stand-in for Slack (the incoming webhook and the
 * Web API's external upload flow), through the guarded client: the Block Kit payload and
 * Slack's limits (3,000-character sections, 50 blocks, 150-character header), escaping, the
 * upload with the bot token and the exact bytes, and the mapping of Slack's answers.
 */
import { randomBytes } from 'node:crypto';
import { createOutboundHttp } from '../../src/infra/outbound/http.js';
import type { DomainError } from '../../src/core/errors.js';
import { ChannelSendError } from '../../src/domain/plugins/channel.js';
import { slackChannel, slackPayload } from '../../src/plugins/slack/index.js';
import { channelContext, sampleMessage } from '../support/channel-message.js';
import { httpPeer, type HttpPeer } from '../support/peers.js';

interface Block { type: string; text?: { type: string; text: string } }

const http = createOutboundHttp({ allow: ['127.0.0.1'] });
let slack: HttpPeer;
let hook: string;

beforeAll(async () => {
  slack = await httpPeer();
  hook = `${slack.url}/services/T000/B000/secret-hook-token`;
});
afterAll(async () => {
  http.close();
  await slack.close();
});
beforeEach(() => {
  slack.requests.length = 0;
  slack.script.length = 0;
});

async function failure(promise: Promise<unknown>): Promise<ChannelSendError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ChannelSendError);
  return err as ChannelSendError;
}

const sent = (i = 0) => JSON.parse(slack.requests[i]!.body) as { text: string; blocks: Block[] };
const sections = (blocks: unknown[]) => (blocks as Block[]).filter((b) => b.type === 'section').map((b) => b.text!.text);
const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
/** Every & starts an entity, and no < or > is left bare. */
const wellEscaped = (s: string) => !/&(?!amp;|lt;|gt;)/.test(s) && !/[<>]/.test(s);

describe('the message', () => {
  it('posts Block Kit to the incoming webhook: header, escaped body, table as code, links', async () => {
    const message = sampleMessage({
      subject: 'Sales <daily> & more',
      body: 'Totals for *today* <!channel> & friends',
      link: { url: 'https://herald.example.com/r/tok', expiresAt: new Date('2025-04-01T00:00:00.000Z') },
    });
    const outcome = await slackChannel.send({ webhook_url: hook }, {}, message, channelContext(http));
    expect(outcome).toEqual({ statusCode: 200, peerMessageId: null, detail: 'HTTP 200' });
    const req = slack.requests[0]!;
    expect(req).toMatchObject({ method: 'POST', path: '/services/T000/B000/secret-hook-token' });
    expect(req.headers['content-type']).toBe('application/json');
    const payload = sent();
    expect(payload.text).toBe('Sales &lt;daily&gt; &amp; more');
    expect(payload.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Sales <daily> & more' } });
    expect(payload.blocks[1]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: 'Totals for *today* &lt;!channel&gt; &amp; friends' } });
    const table = payload.blocks[2]!.text!.text;
    expect(table.startsWith('```') && table.endsWith('```')).toBe(true);
    const lines = table.slice(3, -3).split('\n');
    expect(lines[0]).toBe('region  total');
    expect(lines[2]).toBe('EU      12.5');
    expect(lines[4]).toBe('&lt;b&gt;&amp;');
    expect(payload.blocks[3]).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: '<https://herald.example.com/r/tok|Download the result> (until 2025-04-01)\n<https://herald.example.com/runs/run_1|Open the run in Herald>' },
    });
    expect(payload.blocks).toHaveLength(4);
  });

  it('splits a 10,000-character body into sections of at most 3,000, never inside an entity', () => {
    const body = 'a&b<c>d '.repeat(1250); // 10,000 characters, 15,000 once escaped
    const { blocks } = slackPayload(sampleMessage({ body, table: null }));
    const parts = sections(blocks).slice(0, -1); // the last section holds the links
    expect(parts.length).toBeGreaterThanOrEqual(5);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(3000);
      expect(wellEscaped(p)).toBe(true);
    }
    expect(unescape(parts.join(''))).toBe(body);
  });

  it('prefers line breaks when splitting', () => {
    const body = Array.from({ length: 200 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n');
    const parts = sections(slackPayload(sampleMessage({ body, table: null })).blocks).slice(0, -1);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts.slice(0, -1)) expect(p.endsWith('\n')).toBe(true);
    expect(parts.join('')).toBe(body);
  });

  it('caps 60 sections of body to 50 blocks in all, the last body section ending in "…"', () => {
    const body = 'y'.repeat(60 * 3000);
    const { text, ...payload } = slackPayload(sampleMessage({ body }));
    const blocks = payload.blocks as unknown as Block[];
    expect(blocks).toHaveLength(50);
    expect(blocks[0]!.type).toBe('header');
    // header, 47 body sections, the table, the links
    expect(blocks.at(-2)!.text!.text.startsWith('```')).toBe(true);
    expect(blocks.at(-1)!.text!.text).toContain('Open the run in Herald');
    const lastBody = blocks[47]!.text!.text;
    expect(lastBody.endsWith('…')).toBe(true);
    expect(lastBody.length).toBeLessThanOrEqual(3000);
    expect(text.length).toBeLessThanOrEqual(40_000);
  });

  it('cuts a long subject to the 150-character header, and a wide table to whole lines within 3,000', () => {
    const rows = Array.from({ length: 100 }, (_, i) => [i, `${'<wide>'.repeat(8)} ${i}`]);
    const blocks = slackPayload(sampleMessage({ subject: 'S'.repeat(300), table: { columns: ['n', 'label'], rows, totalRows: 250 } })).blocks as unknown as Block[];
    const header = (blocks[0] as { text: { text: string } }).text.text;
    expect(header).toHaveLength(150);
    expect(header.endsWith('…')).toBe(true);
    const table = blocks.find((b) => b.text?.text.startsWith('```'))!.text!.text;
    expect(table.length).toBeLessThanOrEqual(3000);
    const [code, note] = table.slice(3).split('```');
    const lines = code!.split('\n');
    const shown = lines.length - 2;
    expect(shown).toBeGreaterThan(10);
    expect(shown).toBeLessThan(100);
    expect(note).toBe(`\n… ${250 - shown} more rows`);
    expect(lines.at(-1)).toMatch(new RegExp(`^${shown - 1} +(&lt;wide&gt;){4}&lt;wide…$`));
    expect(wellEscaped(code!)).toBe(true);
  });

  it('gives the fallback text and header the report title when the subject is empty', () => {
    const { text, blocks } = slackPayload(sampleMessage({ subject: '', body: '' }));
    expect(text).toBe('Daily sales');
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Daily sales' } });
    expect(blocks.filter((b) => b.type === 'section')).toHaveLength(2); // the table and the links: no empty body section
  });
});

describe('the file upload', () => {
  const settings = () => ({ webhook_url: hook, bot_token: 'xoxb-secret-bot-token', channel: 'C0123', api_base_url: `${slack.url}/api/` });
  const attachment = { filename: 'sales.xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', content: randomBytes(5000) };

  it('posts the message, then uploads the bytes through the external upload flow with the bot token', async () => {
    slack.script.push(
      { status: 200, body: 'ok' },
      { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ok: true, upload_url: `${slack.url}/upload/v1/ABC`, file_id: 'F0FILE' }) },
      { status: 200, body: 'OK - 5000' },
      { status: 200, body: JSON.stringify({ ok: true, files: [{ id: 'F0FILE', title: 'sales.xlsx' }] }) },
    );
    const outcome = await slackChannel.send(settings(), {}, sampleMessage({ attachment }), channelContext(http));
    expect(outcome).toMatchObject({ statusCode: 200, peerMessageId: 'F0FILE' });
    expect(outcome.detail).not.toContain('xoxb');
    expect(slack.requests.map((r) => r.path)).toEqual([
      '/services/T000/B000/secret-hook-token', '/api/files.getUploadURLExternal', '/upload/v1/ABC', '/api/files.completeUploadExternal',
    ]);
    const [, slot, upload, complete] = slack.requests;
    expect(slot!.headers.authorization).toBe('Bearer xoxb-secret-bot-token');
    expect(slot!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(slot!.body))).toEqual({ filename: 'sales.xlsx', length: '5000' });
    expect(upload!.raw.equals(attachment.content)).toBe(true);
    expect(upload!.headers['content-type']).toBe(attachment.contentType);
    expect(upload!.headers.authorization).toBeUndefined();
    expect(complete!.headers.authorization).toBe('Bearer xoxb-secret-bot-token');
    const form = new URLSearchParams(complete!.body);
    expect(form.get('channel_id')).toBe('C0123');
    expect(JSON.parse(form.get('files')!)).toEqual([{ id: 'F0FILE', title: 'sales.xlsx' }]);
  });

  it('refuses an attachment without a bot token before posting anything', async () => {
    const err = await failure(slackChannel.send({ webhook_url: hook }, {}, sampleMessage({ attachment }), channelContext(http)));
    expect(err.code).toBe('delivery.invalid');
    expect(err.options.transient).toBe(false);
    expect(slack.requests).toHaveLength(0);
  });

  it('maps Web API refusals: an error string is permanent, ratelimited transient, a bad token auth_failed', async () => {
    const api = (answer: Record<string, unknown>) => slack.script.push({ status: 200, body: 'ok' }, { status: 200, body: JSON.stringify(answer) });
    api({ ok: false, error: 'not_in_channel' });
    const refused = await failure(slackChannel.send(settings(), {}, sampleMessage({ attachment }), channelContext(http)));
    expect(refused).toMatchObject({ code: 'delivery.rejected', options: { transient: false } });
    expect(refused.message).toContain('not_in_channel');
    api({ ok: false, error: 'ratelimited' });
    const limited = await failure(slackChannel.send(settings(), {}, sampleMessage({ attachment }), channelContext(http)));
    expect(limited).toMatchObject({ code: 'delivery.peer_error', options: { transient: true } });
    api({ ok: false, error: 'invalid_auth' });
    const auth = await failure(slackChannel.send(settings(), {}, sampleMessage({ attachment }), channelContext(http)));
    expect(auth).toMatchObject({ code: 'delivery.auth_failed', options: { transient: false } });
    expect(auth.message).not.toContain('xoxb');
    slack.script.push({ status: 200, body: 'ok' }, { status: 429, headers: { 'retry-after': '7' }, body: '' });
    const throttled = await failure(slackChannel.send(settings(), {}, sampleMessage({ attachment }), channelContext(http)));
    expect(throttled.options).toMatchObject({ transient: true, statusCode: 429, retryAfterMs: 7000 });
    api({ ok: true });
    const noSlot = await failure(slackChannel.send(settings(), {}, sampleMessage({ attachment }), channelContext(http)));
    expect(noSlot).toMatchObject({ code: 'delivery.peer_error', options: { transient: true } });
  });
});

describe('the webhook\'s answers', () => {
  it.each([
    [400, 'invalid_payload', 'delivery.rejected', false],
    [403, 'action_prohibited', 'delivery.rejected', false],
    [404, 'no_service', 'delivery.rejected', false],
    [410, 'channel_is_archived', 'delivery.rejected', false],
    [500, 'rollup_error', 'delivery.peer_error', true],
  ])('HTTP %i %s → %s', async (status, said, code, transient) => {
    slack.script.push({ status, body: said });
    const err = await failure(slackChannel.send({ webhook_url: hook }, {}, sampleMessage(), channelContext(http)));
    expect(err).toMatchObject({ code, options: { transient, statusCode: status } });
    expect(err.message).toContain(said);
    expect(err.message).not.toContain('secret-hook-token');
    expect(err.message).not.toContain('/services');
  });
});

describe('validate', () => {
  const problems = (settings: Record<string, unknown>, allowed = false) => {
    try {
      slackChannel.validate(settings, { allowsHost: () => allowed });
      return [];
    } catch (err) {
      return (err as DomainError).extras.errors ?? [];
    }
  };

  it('wants https URLs unless allowed, and a channel with a bot token', () => {
    expect(problems({ webhook_url: 'https://hooks.slack.com/services/T/B/x' })).toEqual([]);
    expect(problems({ webhook_url: 'http://hooks.slack.com/services/T/B/x' })).toEqual([expect.objectContaining({ field: 'settings.webhook_url', code: 'validation.format' })]);
    expect(problems({ webhook_url: 'http://slack-stand-in/services/x', api_base_url: 'http://slack-stand-in/api' }, true)).toEqual([]);
    expect(problems({ webhook_url: 'https://hooks.slack.com/x', api_base_url: 'http://evil.example.com/api' })).toEqual([expect.objectContaining({ field: 'settings.api_base_url' })]);
    expect(problems({ webhook_url: 'https://hooks.slack.com/x', bot_token: 'xoxb-1' })).toEqual([expect.objectContaining({ field: 'settings.channel', code: 'validation.required' })]);
    expect(problems({ webhook_url: 'https://hooks.slack.com/x', bot_token: 'xoxb-1', channel: 'C1' })).toEqual([]);
    expect(slackChannel.testTarget('a@example.com')).toEqual({});
  });
});
