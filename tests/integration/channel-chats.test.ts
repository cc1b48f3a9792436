/**
 * The Slack and Teams channels against stand-ins on loopback that speak their protocols: a
 * report run arrives at the Slack incoming webhook as Block Kit within Slack's limits, its file
 * through the external upload flow with the bot token; a Teams workflow receives an Adaptive
 * Card with the table and buttons, kept under 28 KB; errors map to permanent and transient.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { waitForRun } from '../support/runs.js';

interface Seen { method: string; path: string; headers: http.IncomingHttpHeaders; body: Buffer }

let h: Herald;
let admin: SessionClient;
let editor: SessionClient;
let src: PostgresSource;
let server: http.Server;
let base: string;
const seen: Seen[] = [];
const answers = new Map<string, { status: number; body: string }>();
let connectionId: string;
let n = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      seen.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks) });
      const fixed = answers.get(path);
      if (fixed) { res.writeHead(fixed.status); res.end(fixed.body); return; }
      if (path === '/api/files.getUploadURLExternal') {
        res.end(JSON.stringify({ ok: true, upload_url: `${base}/upload/F123`, file_id: 'F123' }));
      } else if (path === '/api/files.completeUploadExternal') {
        res.end(JSON.stringify({ ok: true, files: [{ id: 'F123' }] }));
      } else if (path.startsWith('/teams')) {
        res.writeHead(202); res.end();
      } else {
        res.end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_OUTBOUND_ALLOW: '127.0.0.1', SVC_DELIVERY_BACKOFF_MS: '10', SVC_DELIVERY_SENDS: '2' } });
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table t (id int, label text)`;
    await sql`insert into t select g, 'row <' || g || '> & more' from generate_series(1, 200) g`;
  });
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id;
});
afterAll(async () => {
  await h.stop();
  await src.drop();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => { seen.length = 0; answers.clear(); });

async function runTo(channel: { type: string; settings: Record<string, unknown> }, delivery: Record<string, unknown>) {
  n += 1;
  const c = await admin.post('/api/v1/channels').send({ name: `chat ${n}`, ...channel });
  expect(c.status).toBe(201);
  const q = await editor.post('/api/v1/queries').send({ name: `q${n}`, connection_id: connectionId, sql: 'select id, label from t order by id' }).expect(201);
  const r = await editor.post('/api/v1/reports').send({ title: `Chat report ${n}`, query_id: q.body.id }).expect(201);
  await editor.post(`/api/v1/reports/${r.body.id}/deliveries`).send({ channel_id: c.body.id, settings: delivery }).expect(201);
  const queued = await editor.post(`/api/v1/reports/${r.body.id}/run`).send({});
  return { run: await waitForRun(editor, queued.body.id), channel: c.body };
}

describe('slack', () => {
  it('posts Block Kit to the incoming webhook, with the table as a code block, escaped', async () => {
    const { run, channel } = await runTo({ type: 'slack', settings: { webhook_url: `${base}/services/T0/B0/secret-xyz` } }, { inline_rows: 3, subject: '{{ report.title }}' });
    expect(channel.settings.webhook_url).toEqual({ configured: true });
    expect(run.status).toBe('success');
    expect(run.delivery_attempts[0]).toMatchObject({ status: 'sent', status_code: 200 });
    const post = seen.find((s) => s.path === '/services/T0/B0/secret-xyz')!;
    const payload = JSON.parse(post.body.toString());
    expect(payload.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: expect.stringMatching(/^Chat report \d+$/) } });
    const table = payload.blocks.find((b: { text?: { text: string } }) => b.text?.text.startsWith('```'));
    expect(table.text.text).toContain('row &lt;1&gt; &amp; more');
    expect(table.text.text).toContain('… 197 more rows');
    expect(payload.blocks.at(-1)).toMatchObject({ type: 'section', text: { type: 'mrkdwn', text: expect.stringContaining('|Open the run in Herald>') } });
    expect(h.logs.join('\n')).not.toContain('secret-xyz');
  });

  it('keeps a long body within Slack\'s limits', async () => {
    const { run } = await runTo({ type: 'slack', settings: { webhook_url: `${base}/services/long` } }, { body: '{% for r in rows %}{{ r.label }} {% endfor %}{% for i in (1..2000) %}abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij{% endfor %}' });
    expect(run.status).toBe('success');
    const payload = JSON.parse(seen.find((s) => s.path === '/services/long')!.body.toString());
    expect(payload.blocks.length).toBeLessThanOrEqual(50);
    for (const b of payload.blocks) if (b.type === 'section') expect(b.text.text.length).toBeLessThanOrEqual(3000);
    expect(payload.blocks.filter((b: { type: string }) => b.type === 'section').length).toBeGreaterThan(1);
    expect(payload.text.length).toBeLessThanOrEqual(40_000);
  });

  it('uploads the result file with the bot token through the external upload flow', async () => {
    const { run } = await runTo({
      type: 'slack', settings: { webhook_url: `${base}/services/files`, bot_token: 'xoxb-test-token', channel: 'C0123', api_base_url: `${base}/api` },
    }, { attach: 'csv' });
    expect(run.status).toBe('success');
    expect(run.delivery_attempts[0]).toMatchObject({ status: 'sent', peer_message_id: 'F123' });
    const paths = seen.map((s) => s.path);
    expect(paths).toEqual(['/services/files', '/api/files.getUploadURLExternal', '/upload/F123', '/api/files.completeUploadExternal']);
    const slot = seen[1]!;
    expect(slot.headers.authorization).toBe('Bearer xoxb-test-token');
    const form = new URLSearchParams(slot.body.toString());
    expect(form.get('filename')).toMatch(/\.csv$/);
    expect(Number(form.get('length'))).toBe(seen[2]!.body.length);
    expect(seen[2]!.body.toString().split('\r\n')[0]).toBe('id,label');
    const complete = new URLSearchParams(seen[3]!.body.toString());
    expect(complete.get('channel_id')).toBe('C0123');
    expect(JSON.parse(complete.get('files')!)).toEqual([{ id: 'F123', title: form.get('filename') }]);
  });

  it('maps Slack\'s answers: invalid_payload is permanent, a 500 is retried, an API refusal names its error', async () => {
    answers.set('/services/bad', { status: 400, body: 'invalid_payload' });
    const bad = await runTo({ type: 'slack', settings: { webhook_url: `${base}/services/bad` } }, {});
    expect(bad.run.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 1, status_code: 400, error: { code: 'delivery.rejected' } });
    expect(bad.run.delivery_attempts[0].error.message).toContain('invalid_payload');
    answers.set('/services/down', { status: 500, body: '' });
    const down = await runTo({ type: 'slack', settings: { webhook_url: `${base}/services/down` } }, {});
    expect(down.run.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 2, error: { code: 'delivery.peer_error' } });
    answers.set('/api/files.getUploadURLExternal', { status: 200, body: JSON.stringify({ ok: false, error: 'not_in_channel' }) });
    const refused = await runTo({
      type: 'slack', settings: { webhook_url: `${base}/services/x`, bot_token: 'xoxb-t', channel: 'C1', api_base_url: `${base}/api` },
    }, { attach: 'json' });
    expect(refused.run.delivery_attempts[0]).toMatchObject({ status: 'failed', error: { code: 'delivery.rejected', message: expect.stringContaining('not_in_channel') } });
  });

  it('refuses an attachment without a bot token, and a bot token without a channel', async () => {
    const c = await admin.post('/api/v1/channels').send({ name: 'no bot', type: 'slack', settings: { webhook_url: `${base}/services/nb` } }).expect(201);
    const q = await editor.post('/api/v1/queries').send({ name: 'qq', connection_id: connectionId, sql: 'select 1' }).expect(201);
    const r = await editor.post('/api/v1/reports').send({ title: 'R', query_id: q.body.id }).expect(201);
    const res = await editor.post(`/api/v1/reports/${r.body.id}/deliveries`).send({ channel_id: c.body.id, settings: { attach: 'csv' } });
    expect(res.body.errors[0]).toMatchObject({ field: 'settings.attach', code: 'delivery.channel_cannot' });
    const noChannel = await admin.post('/api/v1/channels').send({ name: 'no chan', type: 'slack', settings: { webhook_url: `${base}/s`, bot_token: 'xoxb-1' } });
    expect(noChannel.body.errors[0]).toMatchObject({ field: 'settings.channel', code: 'validation.required' });
  });
});

describe('teams', () => {
  it('posts an Adaptive Card with the table and buttons to the workflow', async () => {
    const { run } = await runTo({ type: 'teams', settings: { webhook_url: `${base}/teams/wf?sig=secret-sig` } }, { inline_rows: 2, subject: 'Teams {{ row_count }}' });
    expect(run.status).toBe('success');
    expect(run.delivery_attempts[0]).toMatchObject({ status: 'sent', status_code: 202 });
    const payload = JSON.parse(seen.find((s) => s.path.startsWith('/teams/wf'))!.body.toString());
    expect(payload.type).toBe('message');
    const card = payload.attachments[0];
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(card.content.body[0]).toMatchObject({ type: 'TextBlock', text: 'Teams 200', weight: 'Bolder' });
    const table = card.content.body.find((b: { type: string }) => b.type === 'Table');
    expect(table.rows).toHaveLength(3);
    expect(table.rows[1].cells.map((c: { items: Array<{ text: string }> }) => c.items[0]!.text)).toEqual(['1', 'row <1> & more']);
    expect(card.content.actions[0]).toMatchObject({ type: 'Action.OpenUrl', title: 'Open run', url: expect.stringContaining(`/runs/${run.id}`) });
    expect(h.logs.join('\n')).not.toContain('secret-sig');
  });

  it('keeps the card under 28 KB, and retries a 500', async () => {
    const { run } = await runTo({ type: 'teams', settings: { webhook_url: `${base}/teams/big` } }, { inline_rows: 100, body: '{% for i in (1..5000) %}word {% endfor %}' });
    expect(run.status).toBe('success');
    expect(seen.find((s) => s.path === '/teams/big')!.body.length).toBeLessThanOrEqual(28 * 1024);
    answers.set('/teams/err', { status: 500, body: 'oops' });
    const failed = await runTo({ type: 'teams', settings: { webhook_url: `${base}/teams/err` } }, {});
    expect(failed.run.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 2, status_code: 500 });
  });
});
