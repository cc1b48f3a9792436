/**
 * Channels and deliveries end to end, with an in-process worker and real peers on loopback: a
 * webhook receiver (signatures verified with the standardwebhooks package), channel CRUD with
 * sealed secrets, ordered deliveries with Liquid templates, previews, sends with retries inside
 * an attempt, partial runs, resends (one attempt and a channel's failed ones), channel health
 * and its event, test runs that only preview, metrics and logs without secrets, and the sweep
 * of resends whose job or worker was lost.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startHerald, type Herald } from '../support/harness.js';
import { createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { httpPeer, type HttpPeer } from '../support/peers.js';
import { buildSchedulerTasks } from '../../src/main/scheduler-tasks.js';
import { waitForRun } from '../support/runs.js';
import { newId } from '../../src/core/ids.js';
import { createRunEngine } from '../../src/domain/runs/run-engine.js';
import { judgeCondition } from '../../src/domain/reports/condition.js';
import { RunCancelled } from '../../src/domain/runs/model.js';
import { DeliveryTimedOut } from '../../src/domain/deliveries/delivery-worker.js';
import { firstDeliveryJobId } from '../../src/domain/runs/engine-ports.js';
import { ATTEMPT_WRITES, RUN_WRITES } from '../../src/infra/db/stores/status-writes.js';
import { RUN_UPDATED_DATA } from '../../src/infra/db/stores/run-engine-repo.js';
import { OPEN_ATTEMPT_STATUSES } from '../../src/domain/channels/model.js';

const SECRET = `whsec_${Buffer.from('a'.repeat(32)).toString('base64')}`;
const TOKEN_HEADER = 'Bearer very-secret-token-123';

let h: Herald;
let admin: SessionClient;
let editor: SessionClient;
let viewer: SessionClient;
let src: PostgresSource;
let connectionId: string;
let peer: HttpPeer;
let other: HttpPeer;

beforeAll(async () => {
  h = await startHerald({
    env: { SVC_ROLES: 'api,worker', SVC_OUTBOUND_ALLOW: '127.0.0.1', SVC_DELIVERY_BACKOFF_MS: '20', SVC_DELIVERY_SENDS: '4', SVC_RUN_TIMEOUT_SECONDS: '30',
      // Resends here are a person's: no automatic retries, no circuit (tests/integration/delivery-jobs.test.ts has those).
      SVC_DELIVERY_RETRY_SCHEDULE: 'off', SVC_DELIVERY_BREAKER_FAILURES: '1000' },
  });
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  viewer = await createSignedInUser(h, admin, { name: 'Vic', email: 'vic@example.com', role: 'viewer' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table sales (id int primary key, region text not null, total numeric(12,2))`;
    await sql`insert into sales select g, case when g % 2 = 0 then 'EU' else 'US' end, g * 1.5 from generate_series(1, 30) g`;
  });
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Shop')).expect(201)).body.id;
  peer = await httpPeer();
  other = await httpPeer();
});
afterAll(async () => {
  await h.stop();
  await src.drop();
  await peer.close();
  await other.close();
});
beforeEach(() => {
  peer.requests.length = 0;
  peer.script.length = 0;
  peer.fallback = { status: 200, body: 'ok' };
  other.requests.length = 0;
  other.script.length = 0;
  other.fallback = { status: 200, body: 'ok' };
});

let n = 0;
async function report(sql = 'select id, region, total from sales order by id', extra: Record<string, unknown> = {}): Promise<string> {
  n += 1;
  const q = await editor.post('/api/v1/queries').send({ name: `q${n}`, connection_id: connectionId, sql });
  expect(q.status).toBe(201);
  const r = await editor.post('/api/v1/reports').send({ title: `Daily sales ${n}`, query_id: q.body.id, ...extra });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

async function webhookChannel(name: string, url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await admin.post('/api/v1/channels').send({ name, type: 'webhook', settings: { url, signing_secret: SECRET, ...extra } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const waitForRunOf = (id: string, until?: Parameters<typeof waitForRun>[2]) => waitForRun(editor, id, until);

async function runAndWait(reportId: string, path = 'run') {
  const queued = await editor.post(`/api/v1/reports/${reportId}/${path}`).send({});
  expect(queued.status).toBe(202);
  return waitForRunOf(queued.body.id);
}

describe('channels', () => {
  it('keeps secrets sealed, never returns them, and audits every change', async () => {
    const created = await admin.post('/api/v1/channels').send({
      name: 'Ops hook', type: 'webhook', settings: { url: `${peer.url}/hook?token=abc`, signing_secret: SECRET, headers: { Authorization: TOKEN_HEADER } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Ops hook', type: 'webhook', health: 'unknown', last_error: null, last_attempt_at: null, version: 1,
      settings: { url: `${peer.url}/hook?token=abc`, signing_secret: { configured: true }, headers: { configured: true } },
    });
    const [row] = await h.process.container.sql`select settings::text as s, secrets_sealed from channels where id = ${created.body.id}`;
    expect(row!.s).not.toContain('whsec_');
    expect(row!.secrets_sealed).not.toContain('very-secret-token');
    expect(JSON.stringify((await viewer.get(`/api/v1/channels/${created.body.id}`)).body)).not.toContain('whsec_');

    // PATCH keeps omitted secrets; a new destination needs the secrets again.
    const renamed = await admin.patch(`/api/v1/channels/${created.body.id}`).send({ name: 'Ops hook 2', version: 1 });
    expect(renamed.status).toBe(200);
    expect(renamed.body.settings.signing_secret).toEqual({ configured: true });
    const moved = await admin.patch(`/api/v1/channels/${created.body.id}`).send({ settings: { url: `${other.url}/x` }, version: 2 });
    expect(moved.status).toBe(422);
    expect(moved.body.errors[0]).toMatchObject({ field: expect.stringMatching(/^settings\.(signing_secret|headers)$/), code: 'validation.required' });
    const stale = await admin.patch(`/api/v1/channels/${created.body.id}`).send({ name: 'x', version: 1 });
    expect([stale.status, stale.body.code]).toEqual([409, 'conflict.version']);
    const removed = await admin.patch(`/api/v1/channels/${created.body.id}`).send({ settings: { headers: null }, version: 2 });
    expect(removed.status).toBe(200);
    expect(removed.body.settings.headers).toBeUndefined();

    const events = (await admin.get('/api/v1/security-events?limit=200')).body.items as Array<{ type: string; target?: { id: string } }>;
    expect(events.filter((e) => e.target?.id === created.body.id).map((e) => e.type)).toEqual(expect.arrayContaining(['channel.created', 'channel.updated']));
    expect(JSON.stringify(events)).not.toContain('whsec_');
    await admin.delete(`/api/v1/channels/${created.body.id}`).expect(204);
  });

  it('moves a channel with headers in one PATCH when the secrets are sent again whole; the round-tripped marker is refused', async () => {
    const created = (await admin.post('/api/v1/channels').send({
      name: 'Moving hook', type: 'webhook', settings: { url: `${peer.url}/old`, signing_secret: SECRET, headers: { Authorization: TOKEN_HEADER } },
    }).expect(201)).body;
    const marker = await admin.patch(`/api/v1/channels/${created.id}`)
      .send({ settings: { url: `${peer.url}/new`, signing_secret: SECRET, headers: { configured: true } }, version: 1 });
    expect(marker.status).toBe(422);
    expect(marker.body.errors[0]).toMatchObject({ field: 'settings.headers', code: 'validation.required' });
    const moved = await admin.patch(`/api/v1/channels/${created.id}`)
      .send({ settings: { url: `${peer.url}/new`, signing_secret: SECRET, headers: { Authorization: 'Bearer new-token' } }, version: 1 });
    expect(moved.status).toBe(200);
    expect(moved.body.settings).toMatchObject({ url: `${peer.url}/new`, signing_secret: { configured: true }, headers: { configured: true } });
    peer.requests.length = 0;
    await admin.post(`/api/v1/channels/${created.id}/test`).send({}).expect(200);
    expect(peer.requests.at(-1)!.path).toBe('/new');
    expect(peer.requests.at(-1)!.headers.authorization).toBe('Bearer new-token');
    await admin.delete(`/api/v1/channels/${created.id}`).expect(204);
  });

  it('refuses bad settings with per-field problems, and names only channel types', async () => {
    const unknown = await admin.post('/api/v1/channels').send({ name: 'X', type: 'postgres', settings: {} });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'type', code: 'validation.enum' });
    const plain = await admin.post('/api/v1/channels').send({ name: 'X', type: 'webhook', settings: { url: 'http://example.com/hook' } });
    expect(plain.status).toBe(422);
    expect(plain.body.errors[0]).toMatchObject({ field: 'settings.url', code: 'validation.format' });
    const badRedirects = await admin.post('/api/v1/channels').send({ name: 'X', type: 'webhook', settings: { url: 'https://example.com/hook', cross_origin_redirects: 'sometimes' } });
    expect(badRedirects.status).toBe(422);
    expect(badRedirects.body.errors[0]).toMatchObject({ field: 'settings.cross_origin_redirects' });
    const badSecret = await admin.post('/api/v1/channels').send({ name: 'X', type: 'webhook', settings: { url: 'https://example.com/hook', signing_secret: 'nope' } });
    expect(badSecret.status).toBe(422);
    expect(badSecret.body.errors[0].field).toBe('settings.signing_secret');
    await webhookChannel('Dup', `${peer.url}/d`);
    const dup = await admin.post('/api/v1/channels').send({ name: 'dup', type: 'webhook', settings: { url: `${peer.url}/d` } });
    expect(dup.status).toBe(422);
    expect(dup.body.errors[0]).toMatchObject({ field: 'name', code: 'validation.unique' });
    expect((await editor.post('/api/v1/channels').send({ name: 'Y', type: 'webhook', settings: { url: `${peer.url}/d` } })).status).toBe(403);
    const list = await viewer.get('/api/v1/channels');
    expect(list.status).toBe(200);
    const names = list.body.items.map((c: { name: string }) => c.name);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase())));
  });

  it('tests unsaved and saved settings against the real peer, and refuses loopback targets the allow-list does not name', async () => {
    const ok = await admin.post('/api/v1/channels/test').send({ type: 'webhook', settings: { url: `${peer.url}/t` } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'sent', status_code: 200, sent_to: null });
    expect(peer.requests).toHaveLength(1);
    // ::1 is loopback too, and only 127.0.0.1 is allowed: refused at connect time.
    const refused = await admin.post('/api/v1/channels/test').send({ type: 'webhook', settings: { url: `https://[::1]:${peer.port}/t` } });
    expect([refused.status, refused.body.code]).toEqual([422, 'outbound.refused']);
    // So is a redirect from an allowed peer to such an address.
    peer.script.push({ status: 307, headers: { location: `http://[::1]:${peer.port}/metadata` } });
    const redirected = await admin.post('/api/v1/channels/test').send({ type: 'webhook', settings: { url: `${peer.url}/r` } });
    expect([redirected.status, redirected.body.code]).toEqual([422, 'outbound.refused']);
    peer.requests.length = 1;
    const id = await webhookChannel('Tested', `${peer.url}/saved`);
    peer.script.push({ status: 404, body: 'no such hook' });
    const failed = await editor.post(`/api/v1/channels/${id}/test`).send({});
    expect([failed.status, failed.body.code]).toEqual([422, 'delivery.rejected']);
    expect(failed.body.title).toBeDefined();
    const saved = await editor.post(`/api/v1/channels/${id}/test`).send({});
    expect(saved.status).toBe(200);
    expect(peer.requests.at(-1)!.path).toBe('/saved');
    // A test does not change the channel's health.
    expect((await viewer.get(`/api/v1/channels/${id}`)).body.health).toBe('unknown');
  });
});

describe('deliveries', () => {
  it('keeps an ordered list: insert at a position, move, remove, with checks of every setting', async () => {
    const reportId = await report();
    const a = await webhookChannel('Order A', `${peer.url}/a`);
    const path = `/api/v1/reports/${reportId}/deliveries`;
    const first = (await editor.post(path).send({ channel_id: a, settings: { subject: 'one' } }).expect(201)).body;
    const second = (await editor.post(path).send({ channel_id: a, settings: { subject: 'two' } }).expect(201)).body;
    const zeroth = (await editor.post(path).send({ channel_id: a, position: 1, settings: { subject: 'zero', inline_rows: 5, attach: 'csv' } }).expect(201)).body;
    expect(zeroth).toMatchObject({ position: 1, channel_type: 'webhook', settings: { attach: 'csv', inline_rows: 5, send_when_skipped: false, link: null, subject: 'zero' } });
    let list = (await viewer.get(path).expect(200)).body.items;
    expect(list.map((d: { settings: { subject: string }; position: number }) => [d.position, d.settings.subject])).toEqual([[1, 'zero'], [2, 'one'], [3, 'two']]);
    const moved = await editor.put(`${path}/${second.id}`).send({ channel_id: a, position: 1, settings: { subject: 'two' }, version: second.version });
    expect(moved.status).toBe(200);
    expect(moved.body.version).toBe(2);
    list = (await viewer.get(path)).body.items;
    expect(list.map((d: { settings: { subject: string } }) => d.settings.subject)).toEqual(['two', 'zero', 'one']);
    const stale = await editor.put(`${path}/${second.id}`).send({ channel_id: a, settings: {}, version: 1 });
    expect([stale.status, stale.body.code]).toEqual([409, 'conflict.version']);
    await editor.delete(`${path}/${zeroth.id}`).expect(204);
    list = (await viewer.get(path)).body.items;
    expect(list.map((d: { position: number; id: string }) => [d.position, d.id])).toEqual([[1, second.id], [2, first.id]]);

    const bad = await editor.post(path).send({ channel_id: a, settings: { subject: '{{ x | nosuchfilter }}', body: '{% if %}' } });
    expect(bad.status).toBe(422);
    const fields = Object.fromEntries(bad.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]));
    expect(fields).toEqual({ 'settings.subject': 'validation.invalid', 'settings.body': 'validation.invalid' });
    const range = await editor.post(path).send({ channel_id: a, settings: { inline_rows: 101 } });
    expect(range.body.errors[0]).toMatchObject({ field: 'settings.inline_rows', code: 'validation.range' });
    const extra = await editor.post(path).send({ channel_id: a, settings: { to: ['x@example.com'] } });
    expect(extra.status).toBe(422);
    const noChannel = await editor.post(path).send({ channel_id: '0190a0a0-0000-7000-8000-000000000000', settings: {} });
    expect(noChannel.body.errors[0]).toMatchObject({ field: 'channel_id', code: 'validation.invalid' });
    expect((await viewer.post(path).send({ channel_id: a, settings: {} })).status).toBe(403);

    // The channel is in use now: deleting it names the report.
    const inUse = await admin.delete(`/api/v1/channels/${a}`);
    expect([inUse.status, inUse.body.code]).toEqual([409, 'channel.in_use']);
    expect(inUse.body.dependents).toEqual([{ type: 'report', id: reportId, name: expect.stringContaining('Daily sales') }]);
  });

  it('previews a message with sample data before the first run, then with the latest run', async () => {
    const reportId = await report();
    const ch = await webhookChannel('Preview', `${peer.url}/p`);
    const settings = { subject: '{{ report.title }} has {{ row_count }} rows', body: '{% for r in rows limit:2 %}{{ r.region }}={{ r.total }};{% endfor %}', inline_rows: 3, attach: 'xlsx' };
    const sample = await editor.post('/api/v1/deliveries/preview').send({ report_id: reportId, channel_id: ch, settings });
    expect(sample.status).toBe(200);
    expect(sample.body).toMatchObject({ source: 'sample', run_id: null, channel_type: 'webhook', body: 'EU=;US=;', subject: expect.stringMatching(/has 3 rows$/) });
    expect(sample.body.table.columns).toEqual(['region', 'orders', 'revenue']);
    expect(sample.body.attachment).toMatchObject({ filename: expect.stringMatching(/^daily-sales-\d+-\d{4}-\d{2}-\d{2}-\d{4}\.xlsx$/) });
    const run = await runAndWait(reportId);
    expect(run.status).toBe('success');
    const delivery = (await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings }).expect(201)).body;
    const latest = await editor.post('/api/v1/deliveries/preview').send({ report_id: reportId, delivery_id: delivery.id });
    expect(latest.body).toMatchObject({ source: 'latest_run', run_id: run.id, subject: expect.stringMatching(/has 30 rows$/), body: 'US=1.50;EU=3.00;' });
    expect(latest.body.table).toEqual({ columns: ['id', 'region', 'total'], rows: [[1, 'US', '1.50'], [2, 'EU', '3.00'], [3, 'US', '4.50']], total_rows: 30 });
    expect(peer.requests).toHaveLength(0);
  });
});

describe('sending', () => {
  it('sends a run to the webhook, signed so that the receiver can verify it', async () => {
    const reportId = await report();
    const ch = await webhookChannel('Signed', `${peer.url}/signed`, { headers: { Authorization: TOKEN_HEADER } });
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: { attach: 'csv', inline_rows: 2, subject: 'S {{ row_count }}' } }).expect(201);
    const run = await runAndWait(reportId);
    expect(run.status).toBe('success');
    expect(run.steps.map((s: { name: string }) => s.name)).toEqual(['query', 'result_file', 'delivery']);
    expect(run.delivery_attempts).toHaveLength(1);
    const attempt = run.delivery_attempts[0];
    expect(attempt).toMatchObject({ status: 'sent', sends: 1, status_code: 200, channel_name: 'Signed', channel_type: 'webhook', error: null });
    expect(peer.requests).toHaveLength(1);
    const req = peer.requests[0]!;
    expect(req.headers.authorization).toBe(TOKEN_HEADER);
    expect(req.headers['webhook-id']).toBe(attempt.id);
    const verified = new Webhook(SECRET).verify(req.body, {
      'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']),
    }) as Record<string, unknown>;
    expect(verified).toMatchObject({ type: 'report.delivered', id: attempt.id, subject: 'S 30', run: { id: run.id, status: 'success', row_count: 30 } });
    const body = JSON.parse(req.body);
    expect(body.table).toEqual({ columns: ['id', 'region', 'total'], rows: [[1, 'US', '1.50'], [2, 'EU', '3.00']], total_rows: 30 });
    const csv = Buffer.from(body.attachment.content_base64, 'base64').toString('utf8');
    expect(csv.split('\r\n').slice(0, 3)).toEqual(['id,region,total', '1,US,1.50', '2,EU,3.00']);
    expect(csv.split('\r\n')).toHaveLength(32); // the header, the 30 rows and the last line break
    expect(body.attachment.content_type).toBe('text/csv; charset=utf-8');
    // The 30 rows' file was kept in the store by the run's hand-over, and the attachment read from there.
    const [kept] = await h.process.container.sql`select r.result_key from runs r join run_results k on k.run_id = r.id where r.id = ${run.id}`;
    expect(kept?.result_key).toBe(`db:${reportId}/${run.id}`);
    expect((await viewer.get(`/api/v1/channels/${ch}`)).body).toMatchObject({ health: 'healthy', last_attempt_at: expect.any(String) });
    const metrics = (await h.http.get('/metrics')).text;
    expect(metrics).toMatch(/svc_deliveries_total\{destination="webhook",status="sent"\} [1-9]/);
    expect(metrics).toMatch(/svc_delivery_duration_seconds_count\{destination="webhook"\} [1-9]/);
    const sendLogs = h.logs.filter((l) => l.includes('"delivery sent"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(sendLogs.some((l) => l.run_id === run.id && l.report_id === reportId && l.channel === 'Signed')).toBe(true);
    expect(h.logs.join('\n')).not.toContain('very-secret-token');
    expect(h.logs.join('\n')).not.toContain(SECRET);
  });

  it('retries transient failures inside one attempt: a peer that fails twice then succeeds shows one sent attempt', async () => {
    const reportId = await report();
    const ch = await webhookChannel('Flaky', `${peer.url}/flaky`);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: {} }).expect(201);
    peer.script.push({ status: 503, body: 'busy' }, { status: 429, headers: { 'retry-after': '0' } });
    const run = await runAndWait(reportId);
    expect(run.status).toBe('success');
    expect(run.delivery_attempts).toEqual([expect.objectContaining({ status: 'sent', sends: 3, status_code: 200 })]);
    expect(peer.requests).toHaveLength(3);
    expect(new Set(peer.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('does not retry a permanent refusal', async () => {
    const reportId = await report();
    const ch = await webhookChannel('Gone hook', `${peer.url}/gone`);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: {} }).expect(201);
    peer.fallback = { status: 410, body: 'gone' };
    const run = await runAndWait(reportId);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'delivery.all_failed' } });
    expect(run.delivery_attempts[0]).toMatchObject({ status: 'failed', sends: 1, status_code: 410, error: { code: 'delivery.rejected' } });
    expect(peer.requests).toHaveLength(1);
  });

  it('leaves a run partial when one peer is down, and a retry sends the failed attempt', async () => {
    const reportId = await report();
    const down = await webhookChannel('Down', `${peer.url}/down`);
    const up = await webhookChannel('Up', `${other.url}/up`);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: down, settings: {} }).expect(201);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: up, settings: {} }).expect(201);
    peer.fallback = { status: 503, body: 'maintenance' };
    const healthEvents: string[] = [];
    const unsubscribe = await h.process.container.events.subscribe((e) => { if (e.type === 'channel.health') healthEvents.push(JSON.stringify(e.data)); });
    const run = await runAndWait(reportId);
    expect(run.status).toBe('partial');
    const [failed, sent] = run.delivery_attempts;
    expect(failed).toMatchObject({ status: 'failed', sends: 4, status_code: 503, channel_name: 'Down', error: { code: 'delivery.peer_error' } });
    expect(failed.error.message).not.toContain('/down');
    expect(sent).toMatchObject({ status: 'sent', channel_name: 'Up' });
    const downChannel = (await viewer.get(`/api/v1/channels/${down}`)).body;
    expect(downChannel).toMatchObject({ health: 'failing', last_error: { code: 'delivery.peer_error' } });

    // The peer recovers; the retry resends the one failed attempt under the same id.
    peer.fallback = { status: 200, body: 'ok' };
    const before = peer.requests.length;
    const retried = await editor.post(`/api/v1/runs/${run.id}/attempts/${failed.id}/retry`).send({});
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: failed.id, status: expect.stringMatching(/^(queued|sending|sent)$/) });
    // The attempt's end and the run's settling commit together and are read together.
    const after = await waitForRunOf(run.id, (r) => (r as unknown as { delivery_attempts: Array<{ status: string }> }).delivery_attempts[0]!.status === 'sent');
    expect(after.status).toBe('success');
    expect(after.delivery_attempts[0]).toMatchObject({ id: failed.id, status: 'sent', sends: 5, error: null });
    // The resend added to the attempt's history: the four failed requests stay, then the one that went through.
    expect(failed.history).toHaveLength(4);
    const history = (after.delivery_attempts[0] as unknown as { history: Array<{ at: string; duration_ms: number; status_code: number | null; error: { code: string } | null }> }).history;
    expect(history.map((x) => [x.status_code, x.error?.code ?? null])).toEqual([
      [503, 'delivery.peer_error'], [503, 'delivery.peer_error'], [503, 'delivery.peer_error'], [503, 'delivery.peer_error'], [200, null],
    ]);
    expect(history.map((x) => x.at)).toEqual([...history.map((x) => x.at)].sort());
    expect(history.every((x) => x.duration_ms >= 0)).toBe(true);
    expect(peer.requests.slice(before).map((r) => r.headers['webhook-id'])).toEqual([failed.id]);
    expect(other.requests).toHaveLength(1);
    // Idempotent: an attempt already sent is answered as it is and not sent again.
    const again = await editor.post(`/api/v1/runs/${run.id}/attempts/${failed.id}/retry`).send({});
    expect([again.status, again.body.status]).toEqual([200, 'sent']);
    expect(peer.requests.length).toBe(before + 1);
    expect((await viewer.get(`/api/v1/channels/${down}`)).body.health).toBe('healthy');
    const deadline = Date.now() + 20_000;
    while (healthEvents.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await unsubscribe();
    expect(healthEvents.map((e) => JSON.parse(e))).toEqual(expect.arrayContaining([
      { id: down, health: 'failing', previous: 'unknown' }, { id: down, health: 'healthy', previous: 'failing' },
    ]));
    const unknown = await editor.post(`/api/v1/runs/${run.id}/attempts/0190a0a0-0000-7000-8000-000000000000/retry`).send({});
    expect(unknown.status).toBe(404);
    expect((await viewer.post(`/api/v1/runs/${run.id}/attempts/${failed.id}/retry`).send({})).status).toBe(403);
  });

  it('reads a run with its attempts as of one moment, while its settling commits beside the reads', async () => {
    const hook = await webhookChannel('Snapshot', `${peer.url}/snapshot`);
    const reportId = await report();
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: hook, settings: {} }).expect(201);
    peer.fallback = { status: 500 };
    const run = await runAndWait(reportId);
    expect(run.status).toBe('failed');
    const attemptId = run.delivery_attempts[0]!.id;
    const sql = h.process.container.sql;
    // A writer that settles the run and unsettles it again, each time with its attempt in one
    // transaction, as a resend's end does (herald_end_attempt, or the unit of work of settle-run.ts).
    const seen = await besideAWriter((sent) => sql.begin(async (tx) => {
      await tx`update delivery_attempts set status = ${sent ? 'sent' : 'failed'} where id = ${attemptId}`;
      await tx`update runs set status = ${sent ? 'success' : 'failed'} where id = ${run.id}`;
    }), async () => {
      const read: Array<[string, string]> = [];
      for (let i = 0; i < 300; i += 1) {
        const res = await viewer.get(`/api/v1/runs/${run.id}`);
        expect(res.status).toBe(200);
        read.push([res.body.status, res.body.delivery_attempts[0].status]);
      }
      return read;
    }, async () => {
      await sql`update delivery_attempts set status = 'failed' where id = ${attemptId}`;
      await sql`update runs set status = 'failed' where id = ${run.id}`;
    });
    // Both states were read (the writer ran beside the reads), never one's run with the other's attempt.
    expect(new Set(seen.map(([status]) => status))).toEqual(new Set(['success', 'failed']));
    expect(seen.filter(([status, attempt]) => (status === 'success') !== (attempt === 'sent'))).toEqual([]);
  });

  it('answers a cancellation with the run and its attempts as of one moment, while a hand-over commits beside it', async () => {
    const hook = await webhookChannel('Cancel snapshot', `${peer.url}/cancel-snapshot`);
    const reportId = await report();
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: hook, settings: {} }).expect(201);
    peer.fallback = { status: 500 };
    const run = await runAndWait(reportId);
    const attemptId = run.delivery_attempts[0]!.id;
    const sql = h.process.container.sql;
    // The run running again (no worker holds it, so a cancellation stays asked for), and a writer
    // that changes its row and its attempt in one transaction, the row first, as a hand-over does.
    await sql`update runs set status = 'running', finished_at = null, error_code = null, error_message = null where id = ${run.id}`;
    const seen = await besideAWriter((sent) => sql.begin(async (tx) => {
      await tx`update runs set row_count = ${sent ? 1 : 0} where id = ${run.id}`;
      await tx`update delivery_attempts set status = ${sent ? 'sent' : 'failed'} where id = ${attemptId}`;
    }), async () => {
      const answered: Array<[number, string]> = [];
      for (let i = 0; i < 200; i += 1) {
        const res = await editor.post(`/api/v1/runs/${run.id}/cancel`).send({});
        expect(res.status).toBe(202);
        answered.push([res.body.row_count, res.body.delivery_attempts[0].status]);
      }
      return answered;
    }, async () => {
      await sql`update delivery_attempts set status = 'failed' where id = ${attemptId}`;
      await sql`update runs set status = 'failed', finished_at = now(), row_count = 1, cancel_requested_at = null where id = ${run.id}`;
    });
    // Both states were answered (the writer ran beside the cancellations), never one's run with the other's attempt.
    expect(new Set(seen.map(([rows]) => rows))).toEqual(new Set([0, 1]));
    expect(seen.filter(([rows, attempt]) => (rows === 1) !== (attempt === 'sent'))).toEqual([]);
  });

  it('resends every failed attempt of a channel, once', async () => {
    const hook = await webhookChannel('Batch', `${peer.url}/batch`);
    const reports = [await report(), await report()];
    for (const r of reports) await editor.post(`/api/v1/reports/${r}/deliveries`).send({ channel_id: hook, settings: {} }).expect(201);
    peer.fallback = { status: 500 };
    const runs = [await runAndWait(reports[0]!), await runAndWait(reports[1]!)];
    expect(runs.map((r) => r.status)).toEqual(['failed', 'failed']);
    peer.fallback = { status: 200, body: 'ok' };
    const res = await editor.post(`/api/v1/channels/${hook}/retry-failed`).send({});
    expect(res.status).toBe(202);
    expect(res.body.queued.map((a: { run_id: string }) => a.run_id).sort()).toEqual(runs.map((r) => r.id).sort());
    for (const r of runs) {
      const done = await waitForRunOf(r.id, (x) => (x as unknown as { delivery_attempts: Array<{ status: string }> }).delivery_attempts[0]!.status === 'sent');
      expect(done.status).toBe('success');
    }
    const repeat = await editor.post(`/api/v1/channels/${hook}/retry-failed`).send({});
    expect(repeat.body.queued).toEqual([]);

    // The channel's attempts, newest first, a page at a time, each with its run and report (viewers read them).
    const titles = await Promise.all(reports.map(async (r) => (await viewer.get(`/api/v1/reports/${r}`)).body.title as string));
    const first = await viewer.get(`/api/v1/channels/${hook}/attempts?limit=1`);
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.items[0]).toMatchObject({
      run_id: runs[1]!.id, report_id: reports[1], report_title: titles[1], trigger: 'manual', status: 'sent', sends: runs[1]!.delivery_attempts[0]!.sends + 1, status_code: 200, error: null, next_retry_at: null,
    });
    const second = await viewer.get(`/api/v1/channels/${hook}/attempts?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.items.map((a: { run_id: string; report_title: string }) => [a.run_id, a.report_title])).toEqual([[runs[0]!.id, titles[0]]]);
    expect(second.body.next_cursor).toBeUndefined();
    const all = await viewer.get(`/api/v1/channels/${hook}/attempts`);
    expect(all.body.items.map((a: { id: string }) => a.id)).toEqual([runs[1]!, runs[0]!].map((r) => r.delivery_attempts[0]!.id));
    // Another channel's attempts are not among them; an unknown channel is 404; a bad cursor a field problem.
    const unused = await webhookChannel('Unused for attempts', `${peer.url}/unused`);
    expect((await viewer.get(`/api/v1/channels/${unused}/attempts`)).body).toEqual({ items: [] });
    expect((await viewer.get('/api/v1/channels/0190a0a0-0000-7000-8000-000000000000/attempts')).status).toBe(404);
    const bad = await viewer.get(`/api/v1/channels/${hook}/attempts?cursor=nonsense`);
    expect([bad.status, bad.body.errors?.[0]?.field]).toEqual([422, 'cursor']);
  });

  it('sends on a skipped run only the deliveries that ask for it', async () => {
    const reportId = await report('select id from sales where id < 0', { condition: { type: 'rows_exist' } });
    const ch = await webhookChannel('Skips', `${peer.url}/skips`);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: { subject: 'quiet' } }).expect(201);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: { subject: 'loud', send_when_skipped: true } }).expect(201);
    const run = await runAndWait(reportId);
    expect(run.status).toBe('skipped');
    expect(run.delivery_attempts).toHaveLength(1);
    expect(JSON.parse(peer.requests[0]!.body)).toMatchObject({ subject: 'loud', run: { status: 'skipped' } });
  });

  it('does not deliver a manual run queued with deliver false', async () => {
    const reportId = await report();
    const ch = await webhookChannel('Quiet', `${peer.url}/quiet`);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: {} }).expect(201);
    const queued = await editor.post(`/api/v1/reports/${reportId}/run`).send({ deliver: false });
    const run = await waitForRunOf(queued.body.id);
    expect([run.status, run.delivery_attempts]).toEqual(['success', []]);
    expect(peer.requests).toHaveLength(0);
  });

  it('renders a test run\'s webhook delivery as a preview on the run and sends nothing', async () => {
    const reportId = await report();
    const ch = await webhookChannel('Test only', `${peer.url}/test-only`);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: { subject: 'T {{ row_count }}', inline_rows: 1 } }).expect(201);
    const run = await runAndWait(reportId, 'test-delivery');
    expect(run).toMatchObject({ status: 'success', trigger: 'test' });
    expect(run.delivery_attempts[0]).toMatchObject({ status: 'preview', sends: 0, preview: { subject: 'T 30', table: { rows: [[1, 'US', '1.50']] } } });
    expect(peer.requests).toHaveLength(0);
    const preview = await editor.post(`/api/v1/runs/${run.id}/attempts/${run.delivery_attempts[0].id}/retry`).send({});
    expect([preview.status, preview.body.code]).toEqual([409, 'delivery.attempt_not_failed']);
  });

  it('fails a delivery whose template breaks at render time, with its code', async () => {
    const reportId = await report();
    const ch = await webhookChannel('Templ', `${peer.url}/templ`);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: { body: '{% for i in (1..50000000) %}{{ i }}{% endfor %}' } }).expect(201);
    const run = await runAndWait(reportId);
    expect(run.delivery_attempts[0]).toMatchObject({ status: 'failed', error: { code: 'delivery.template_failed' } });
    expect(peer.requests).toHaveLength(0);
  });
});

/** A webhook receiver that takes each request and holds its answer until `answer()`; records each webhook-id. */
/**
 * Runs `reads` while a writer calls `write` over and over (alternating `even`), then stops the
 * writer; `restore` runs either way, and what the writer threw is thrown after (a rejection left
 * unobserved meanwhile would hide it).
 */
async function besideAWriter<T>(write: (even: boolean) => Promise<unknown>, reads: () => Promise<T>, restore: () => Promise<unknown>): Promise<T> {
  let stop = false;
  let flips = 0;
  let writeError: unknown;
  const writer = (async () => {
    while (!stop) {
      await write(flips % 2 === 0);
      flips += 1;
    }
  })().catch((err: unknown) => { writeError = err; });
  let result: T;
  try {
    result = await reads();
  } finally {
    stop = true;
    await writer;
    await restore();
  }
  if (writeError) throw writeError;
  return result;
}

async function hangingPeer() {
  const received: string[] = [];
  let holding = true;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      if (!holding) res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    answer: () => { holding = false; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('a delivery stopped while its peer holds the request', () => {
  /**
   * The run engine as the worker builds it, with a planner that queues nothing: the test drives
   * the delivery worker itself, with a signal of its own, so that the stop's reason is the test's
   * choice: the run's cancel, the job's time limit, or a shutdown.
   */
  function engine() {
    const c = h.process.container;
    const { deliveryPlanner } = h.process.services;
    return createRunEngine({
      store: c.repos.runEngine, pools: c.pools, artifacts: c.artifacts,
      metrics: { finished: () => undefined, rows: () => undefined }, clock: c.clock, log: c.logger, timeoutMs: 60_000,
      conditions: judgeCondition, deliveries: { plan: deliveryPlanner.plan, enqueue: async () => undefined },
    });
  }

  /** A run of a report delivering to the hanging peer, carried to its delivery step (its attempt pending, not queued). */
  async function deliveringRun(url: string): Promise<{ runId: string; attemptId: string }> {
    const reportId = await report('select 1 as one');
    const ch = await webhookChannel(`Hanging ${n}`, url);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: {} }).expect(201);
    const runId = newId();
    await h.process.container.sql`insert into runs (id, report_id, trigger, status) values (${runId}, ${reportId}, 'manual', 'pending')`;
    await engine().execute(runId, { signal: new AbortController().signal });
    const attempt = await attemptOf(runId);
    expect(attempt).toMatchObject({ status: 'pending', sends: 0 });
    expect(await runRow(runId)).toMatchObject({ status: 'running', error_code: null });
    return { runId, attemptId: attempt.id as string };
  }

  /** The attempt's job, as the run engine queues it. */
  const deliver = async (runId: string, attemptId: string, signal: AbortSignal, jobId = firstDeliveryJobId(attemptId)) => {
    const [a] = await h.process.container.sql`select channel_id, delivery_id from delivery_attempts where id = ${attemptId}`;
    return h.process.services.deliveryWorker.deliver({ attemptId, runId, jobId, channelId: a!.channel_id, deliveryId: a!.delivery_id }, signal);
  };

  const attemptOf = async (runId: string) => (await h.process.container.sql`
    select id, status, sends, error, finished_at, next_retry_at, history, job_id from delivery_attempts where run_id = ${runId}`)[0]!;
  const runRow = async (runId: string) => (await h.process.container.sql`select status, error_code from runs where id = ${runId}`)[0]!;

  async function until(check: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('ends the attempt failed run.cancelled when the run is cancelled, delivery.timeout (retried later) when its job runs out of time, counting the request the peer got', async () => {
    const peerThatHangs = await hangingPeer();
    try {
      for (const [reason, code, runStatus] of [
        [new RunCancelled(), 'run.cancelled', 'cancelled'], [new DeliveryTimedOut(900_000), 'delivery.timeout', 'failed'],
      ] as const) {
        const { runId, attemptId } = await deliveringRun(peerThatHangs.url);
        const before = peerThatHangs.received.length;
        const stop = new AbortController();
        const sending = deliver(runId, attemptId, stop.signal);
        await until(() => peerThatHangs.received.length > before, 'the peer to get the request');
        // The cancellation is recorded on the run, then its event stops the send (as runs-service and the worker do).
        if (reason instanceof RunCancelled) await h.process.container.sql`update runs set cancel_requested_at = now() where id = ${runId}`;
        stop.abort(reason);
        await sending;
        expect(await runRow(runId)).toMatchObject({ status: runStatus, error_code: runStatus === 'cancelled' ? 'run.cancelled' : 'delivery.all_failed' });
        const attempt = await attemptOf(runId);
        expect(attempt).toMatchObject({ status: 'failed', sends: 1, error: { code } });
        expect(attempt.finished_at).not.toBeNull();
        expect(attempt.history).toEqual([expect.objectContaining({ error: expect.objectContaining({ code }) })]);
        // No automatic retry in this file (SVC_DELIVERY_RETRY_SCHEDULE off; delivery-jobs.test.ts retries a timed-out one).
        expect(attempt.next_retry_at).toBeNull();
      }
    } finally {
      await peerThatHangs.close();
    }
  });

  it('through the API and the worker: a run cancelled while its peer holds the request ends its attempt failed run.cancelled, sends 1', async () => {
    const peerThatHangs = await hangingPeer();
    try {
      const reportId = await report('select 1 as one');
      const ch = await webhookChannel(`Hanging ${n}`, peerThatHangs.url);
      await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: {} }).expect(201);
      const queued = (await editor.post(`/api/v1/reports/${reportId}/run`).send({}).expect(202)).body;
      await until(() => peerThatHangs.received.length === 1, 'the peer to get the request');
      expect((await editor.post(`/api/v1/runs/${queued.id}/cancel`)).status).toBe(202);
      const run = await waitForRunOf(queued.id);
      expect(run).toMatchObject({ status: 'cancelled', error: { code: 'run.cancelled' } });
      expect(run.delivery_attempts).toEqual([expect.objectContaining({
        id: peerThatHangs.received[0], status: 'failed', sends: 1, error: expect.objectContaining({ code: 'run.cancelled' }),
      })]);
    } finally {
      await peerThatHangs.close();
    }
  });

  it('leaves the attempt sending at a worker\'s shutdown, and its job, taken again, sends it under the same id; sends counts both requests', async () => {
    const peerThatHangs = await hangingPeer();
    try {
      const { runId, attemptId } = await deliveringRun(peerThatHangs.url);
      const stop = new AbortController();
      const sending = deliver(runId, attemptId, stop.signal);
      await until(() => peerThatHangs.received.length === 1, 'the peer to get the request');
      stop.abort('the worker is shutting down');
      await expect(sending).rejects.toThrow('the worker is shutting down');
      expect(await runRow(runId)).toMatchObject({ status: 'running', error_code: null });
      const handedBack = await attemptOf(runId);
      expect(handedBack).toMatchObject({ status: 'sending', sends: 1, error: null, finished_at: null });
      expect(handedBack.history).toEqual([expect.objectContaining({ statusCode: null, error: expect.objectContaining({ code: 'worker.shutdown' }) })]);

      // Another job (a stale one) takes nothing; the job handed back, taken again, sends it: the peer answers now.
      expect(await deliver(runId, attemptId, new AbortController().signal, `deliver-${attemptId}-stale`)).toEqual({});
      expect(peerThatHangs.received).toHaveLength(1);
      peerThatHangs.answer();
      await deliver(runId, attemptId, new AbortController().signal);
      expect(await runRow(runId)).toMatchObject({ status: 'success', error_code: null });
      const sent = await attemptOf(runId);
      expect(sent).toMatchObject({ id: handedBack.id, status: 'sent', sends: 2, error: null });
      expect(sent.history).toHaveLength(2);
      expect(peerThatHangs.received).toEqual([handedBack.id, handedBack.id]);
    } finally {
      await peerThatHangs.close();
    }
  });
});

describe('the sweep', () => {
  it('queues again a delivery whose job went missing and an automatic retry overdue without its job; each is sent under its id', async () => {
    const sweep = buildSchedulerTasks(h.process.container, h.process.services).find((t) => t.name === 'run sweep')!;
    const reportId = await report();
    const ch = await webhookChannel('Swept', `${peer.url}/swept`);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: {} }).expect(201);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: { subject: 'second' } }).expect(201);
    peer.fallback = { status: 400 };
    const run = await runAndWait(reportId);
    expect(run.status).toBe('failed');
    const [lostJob, overdue] = run.delivery_attempts;
    // A delivery whose job Redis lost (pending, untouched for 5 minutes, naming a job the queue does not have), and an
    // automatic retry due 5 minutes ago whose delayed job is gone too.
    const sql = h.process.container.sql;
    await sql`update delivery_attempts set status = 'pending', job_id = 'deliver-lost', updated_at = now() - interval '5 minutes' where id = ${lostJob.id}`;
    await sql`update delivery_attempts set next_retry_at = now() - interval '5 minutes', job_id = 'deliver-lost-too' where id = ${overdue.id}`;
    await sql`update runs set status = 'running', finished_at = null, error_code = null, error_message = null, delivering_since = now() where id = ${run.id}`;
    peer.fallback = { status: 200, body: 'ok' };
    peer.requests.length = 0;
    await sweep.run(new Date());
    // Whichever is sent first, the run may show partial for a moment (the other still failed, its retry not yet
    // sent): it is settled once both are.
    const after = await waitForRunOf(run.id, (r) => r.status !== 'running' && r.delivery_attempts.every((a: { status: string; next_retry_at: string | null }) => a.status === 'sent' || a.status === 'failed' && !a.next_retry_at));
    expect(after.status).toBe('success');
    expect(after.delivery_attempts.map((a: { id: string; status: string }) => [a.id, a.status])).toEqual([[lostJob.id, 'sent'], [overdue.id, 'sent']]);
    expect(peer.requests.map((r) => r.headers['webhook-id']).sort()).toEqual([lostJob.id, overdue.id].sort());
    expect(h.logs.some((l) => l.includes('deliveries whose job went missing were queued again'))).toBe(true);
  });
});

describe('formula-safe csv in deliveries', () => {
  const csvOf = (path: string) => {
    const body = JSON.parse(peer.requests.find((r) => r.path === path)!.body);
    return { body, lines: Buffer.from(body.attachment.content_base64, 'base64').toString('utf8').split('\r\n') };
  };

  it('attaches csv formula-safe by default (text only, numbers untouched); csv_formula_safe: false sends the exact values', async () => {
    const reportId = await report(`select id, case when id = 1 then '=1+1' else '@z' end as label, text '-y' as dash, text '+x' as plus,
      -5 as n, -total as total from sales where id <= 2 order by id`);
    const safe = await webhookChannel('Safe csv', `${peer.url}/safe-csv`);
    const exact = await webhookChannel('Exact csv', `${peer.url}/exact-csv`);
    const path = `/api/v1/reports/${reportId}/deliveries`;
    const first = (await editor.post(path).send({ channel_id: safe, settings: { attach: 'csv', link: { format: 'csv' } } }).expect(201)).body;
    expect(first.settings).toMatchObject({ attach: 'csv', csv_formula_safe: true });
    const second = (await editor.post(path).send({ channel_id: exact, settings: { attach: 'csv', csv_formula_safe: false } }).expect(201)).body;
    expect(second.settings).toMatchObject({ attach: 'csv', csv_formula_safe: false });
    const bad = await editor.post(path).send({ channel_id: exact, settings: { csv_formula_safe: 'no' } });
    expect([bad.status, bad.body.errors[0].field]).toEqual([422, 'settings.csv_formula_safe']);

    const run = await runAndWait(reportId);
    expect(run.status).toBe('success');
    const sent = csvOf('/safe-csv');
    expect(sent.lines.slice(0, 3)).toEqual(['id,label,dash,plus,n,total', "1,'=1+1,'-y,'+x,-5,-1.50", "2,'@z,'-y,'+x,-5,-3.00"]);
    // A csv link opens formula-safe too.
    expect(sent.body.link.url).toMatch(new RegExp(`^${h.settings.publicUrl}/r/[A-Za-z0-9_-]{43}\\?formula_safe=true$`));
    const linked = await h.http.get(new URL(sent.body.link.url).pathname + new URL(sent.body.link.url).search);
    expect(linked.text.split('\r\n')[1]).toBe("1,'=1+1,'-y,'+x,-5,-1.50");
    expect(csvOf('/exact-csv').lines.slice(0, 3)).toEqual(['id,label,dash,plus,n,total', '1,=1+1,-y,+x,-5,-1.50', '2,@z,-y,+x,-5,-3.00']);
  });

  it('keeps csv formula-safe for deliveries saved before the setting existed', async () => {
    const reportId = await report(`select text '=1+1' as label`);
    const ch = await webhookChannel('Older delivery', `${peer.url}/older`);
    const d = (await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: { attach: 'csv' } }).expect(201)).body;
    await h.process.container.sql`update deliveries set settings = settings - 'csvFormulaSafe' where id = ${d.id}`;
    expect((await editor.get(`/api/v1/reports/${reportId}/deliveries`)).body.items[0].settings.csv_formula_safe).toBe(true);
    expect((await runAndWait(reportId)).status).toBe('success');
    expect(csvOf('/older').lines[1]).toBe("'=1+1");
  });
});

describe('links in deliveries', () => {
  it('sends a fresh shared link that downloads the result, and previews a placeholder', async () => {
    const reportId = await report();
    const ch = await webhookChannel('Linked', `${peer.url}/linked`);
    const delivery = (await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({
      channel_id: ch, settings: { link: { format: 'json', expires_in_days: 2 }, body: 'Get it: {{ link.url }}' },
    }).expect(201)).body;
    expect(delivery.settings.link).toEqual({ format: 'json', expires_in_days: 2 });
    const preview = await editor.post('/api/v1/deliveries/preview').send({ report_id: reportId, delivery_id: delivery.id });
    expect(preview.body.link.url).toMatch(/\/r\/\(a new token for each send\)$/);
    const run = await runAndWait(reportId);
    expect(run.status).toBe('success');
    const body = JSON.parse(peer.requests.at(-1)!.body);
    expect(body.link.url).toMatch(new RegExp(`^${h.settings.publicUrl}/r/[A-Za-z0-9_-]{43}$`));
    expect(body.body).toBe(`Get it: ${body.link.url}`);
    expect(Date.parse(body.link.expires_at) - Date.now()).toBeGreaterThan(47 * 3600_000);
    const file = await h.http.get(new URL(body.link.url).pathname);
    expect(file.status).toBe(200);
    expect(file.body.rows).toHaveLength(30);
    const links = (await viewer.get(`/api/v1/links?run_id=${run.id}`)).body.items;
    expect(links).toEqual([expect.objectContaining({ status: 'active', format: 'json', created_by: null, download_count: 1 })]);
    // A channel without links refuses them.
    const s3 = await admin.post('/api/v1/channels').send({ name: 'Bucket for links', type: 's3', settings: { bucket: 'b-1', access_key_id: 'a', secret_access_key: 'b' } }).expect(201);
    const refused = await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: s3.body.id, settings: { attach: 'csv', link: { format: 'csv' } } });
    expect(refused.body.errors[0]).toMatchObject({ field: 'settings.link', code: 'delivery.channel_cannot' });
  });
});


describe('ending an attempt in one round trip (delivery-statements.ts)', () => {
  it('records concurrent ends of a run\'s attempts so that exactly the last settles it, as the unit of work does, with its events', async () => {
    const reportId = await report();
    const channelIds = [await webhookChannel('Round trip A', `${peer.url}/a`), await webhookChannel('Round trip B', `${peer.url}/b`)];
    for (const ch of [...channelIds, channelIds[0]!, channelIds[1]!, channelIds[0]!, channelIds[1]!]) {
      await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: ch, settings: {} }).expect(201);
    }
    const run = await runAndWait(reportId);
    expect(run.status).toBe('success');
    const attempts = (run.delivery_attempts as Array<{ id: string }>).map((a) => a.id);
    expect(attempts).toHaveLength(6);
    const sql = h.process.container.sql;
    const ends = h.process.container.repos.attempts;
    // The run back to delivering, its six attempts sending, as if six sends were under way.
    const stepsDelivering = (run.steps as Array<Record<string, unknown>>).map((s) => (s.name === 'delivery'
      ? { name: s.name, status: 'running', startedAt: s.started_at, finishedAt: null, error: null }
      : { name: s.name, status: s.status, startedAt: s.started_at, finishedAt: s.finished_at, error: s.error, ...(s.detail ? { detail: s.detail } : {}) }));
    const reset = async () => {
      await sql`update runs set status = 'running', finished_at = null, error_code = null, error_message = null, delivering_since = now(),
        steps = ${JSON.stringify(stepsDelivering)}::jsonb where id = ${run.id}`;
      await sql`update delivery_attempts set status = 'sending', finished_at = null, error = null where run_id = ${run.id}`;
      await sql`update channels set health = 'healthy' where id in ${sql(channelIds)}`;
    };
    const end = (i: number, status: 'sent' | 'failed') => ends.endAttempt(attempts[i]!, run.id, {
      status, sends: 1, finishedAt: new Date(), statusCode: status === 'sent' ? 200 : 500, peerMessageId: null, detail: `HTTP ${status === 'sent' ? 200 : 500}`,
      error: status === 'sent' ? null : { code: 'delivery.peer_error', message: 'The webhook answered HTTP 500' },
      history: [{ at: new Date(), durationMs: 3, statusCode: status === 'sent' ? 200 : 500, error: null, bytesSent: 10, responseExcerpt: null }],
    });

    for (let round = 0; round < 5; round += 1) {
      await reset();
      const since = Number((await sql`select coalesce(max(id), 0)::bigint as n from events`)[0]!.n);
      // All six at once; channel B's three fail, which makes the run partial.
      const results = await Promise.all(attempts.map((_, i) => end(i, i % 2 === 1 ? 'failed' : 'sent')));
      expect(results.every((r) => r.kind === 'ended')).toBe(true);
      const settled = results.filter((r) => r.kind === 'ended' && r.runEnded);
      expect(settled).toHaveLength(1);
      const [row] = await sql`select status, error_code, steps, finished_at from runs where id = ${run.id}`;
      expect(row).toMatchObject({ status: 'partial', error_code: null });
      const delivery = (row!.steps as Array<Record<string, unknown>>).find((s) => s.name === 'delivery');
      expect(delivery).toMatchObject({ status: 'failed', error: { code: 'delivery.partial', message: '3 of 6 deliveries failed' }, detail: { sent: 3, failed: 3, previewed: 0 } });
      expect(delivery!.finishedAt).toBe(new Date(row!.finished_at as string).toISOString());
      const events = await sql`select type, data from events where id > ${since} order by id`;
      const ofRun = events.filter((e) => e.data.id === run.id || e.data.id === reportId);
      expect(ofRun.map((e) => [e.type, e.data.status ?? e.data.change])).toEqual([['run.updated', 'partial'], ['report.updated', 'ran']]);
      expect(ofRun[0]!.data).toEqual({ id: run.id, report_id: reportId, status: 'partial', trigger: 'manual', finished_at: new Date(row!.finished_at as string).toISOString() });
      expect(ofRun[1]!.data).toEqual({ id: reportId, change: 'ran', last_run: { id: run.id, status: 'partial' } });
      // Channel B went from healthy to failing once (its later ends see it failing already).
      expect(events.filter((e) => e.type === 'channel.health').map((e) => e.data)).toEqual([{ id: channelIds[1], health: 'failing', previous: 'healthy' }]);
    }

    // Every one failed: failed delivery.all_failed, as deliveredOutcome says.
    await reset();
    await Promise.all(attempts.map((_, i) => end(i, 'failed')));
    const [failed] = await sql`select status, error_code, error_message from runs where id = ${run.id}`;
    expect(failed).toMatchObject({ status: 'failed', error_code: 'delivery.all_failed', error_message: 'Every delivery failed (6); each delivery attempt says why' });

    // A run not simply delivering (a cancellation asked for) is left to the unit of work; an attempt not sending is not ended twice.
    await reset();
    await sql`update runs set cancel_requested_at = now() where id = ${run.id}`;
    expect(await end(0, 'sent')).toEqual({ kind: 'unusual' });
    expect((await sql`select status from delivery_attempts where id = ${attempts[0]!}`)[0]!.status).toBe('sending');
    await sql`update runs set cancel_requested_at = null where id = ${run.id}`;
    expect((await end(0, 'sent')).kind).toBe('ended');
    expect(await end(0, 'sent')).toEqual({ kind: 'gone' });

    // An end caught in a deadlock is tried again rather than failed (its job's retry would send
    // the message a second time). A transaction of the test holds channel A's row, waits until
    // the end waits for it (holding the run's), then asks for the run's row: PostgreSQL's
    // detector (the end's session, 1 s; the test's set to 60 s) rolls the end back.
    await reset();
    const holder = h.process.container.sql;
    const waitingEnd = async () => {
      for (let i = 0; i < 200; i += 1) {
        const [w] = await sql`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like 'select * from herald_end_attempt(%'`;
        if (w!.n > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('the end never waited for the channel');
    };
    const sendsBefore = (await sql`select sends from delivery_attempts where id = ${attempts[0]!}`)[0]!.sends as number;
    let ended: Promise<Awaited<ReturnType<typeof end>>> | undefined;
    await holder.begin(async (tx) => {
      await tx`set local deadlock_timeout = '60s'`;
      await tx`select 1 from channels where id = ${channelIds[0]!} for update`;
      ended = end(0, 'sent');
      await waitingEnd();
      await tx`select 1 from runs where id = ${run.id} for update`;
    });
    expect((await ended!).kind).toBe('ended');
    // Recorded once: the rolled-back try left nothing.
    expect((await sql`select status, sends from delivery_attempts where id = ${attempts[0]!}`)[0]).toMatchObject({ status: 'sent', sends: sendsBefore + 1 });
  });

  it('sends a worker\'s hot statements on a lane of two connections of its own, where they pipeline', async () => {
    const reportId = await report();
    const channelId = await webhookChannel('Lane', `${peer.url}/lane`);
    await editor.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: channelId, settings: {} }).expect(201);
    expect((await runAndWait(reportId)).status).toBe('success');
    const lane = await h.process.container.sql`select query from pg_stat_activity
      where datname = current_database() and application_name like 'herald-%-lane'`;
    expect(lane.length).toBeGreaterThan(0);
    expect(lane.length).toBeLessThanOrEqual(2);
    // What each last ran: a run's claim, hand-over or end, a delivery's take or end.
    for (const { query } of lane) expect(query).toMatch(/^(with t as|with h as|select \* from herald_end_attempt|update delivery_attempts x|select to_jsonb\(d\))/);
  });

  it('keeps the end function (a migration) in step with the code: the state machine\'s statuses and the run.updated data', async () => {
    // herald_end_attempt holds copies of what the code defines elsewhere; a change there needs a
    // migration that replaces the function, which this names.
    const [fn] = await h.process.container.sql`select prosrc from pg_proc where proname = 'herald_end_attempt'`;
    const body = fn!.prosrc as string;
    const quoted = (list: readonly string[]) => list.map((x) => `'${x}'`).join(', ');
    expect(body).toContain(`where id = $1::uuid and status in (${quoted(ATTEMPT_WRITES.finish.from)})`);
    expect(body).toContain(`x.status in (${quoted(RUN_WRITES.finish.from)})`);
    expect(body).toContain(`count(*) filter (where a.status in (${quoted([...OPEN_ATTEMPT_STATUSES])}))`);
    expect(body).toContain(`select 1 as n, 'run.updated' as type, ${RUN_UPDATED_DATA} as data from e t`);
    // The lock comes first, in a statement of its own.
    expect(body.indexOf('FOR UPDATE;')).toBeLessThan(body.indexOf('RETURN QUERY'));
  });
});
