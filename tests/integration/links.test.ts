/**
 * Shared links end to end: an editor shares a run's result (the token only in the answer, only
 * its hash in the store), anyone with the URL downloads it (public, logged and counted), a
 * revoked link answers 410 link.revoked at once, an expired one 410 link.expired (the clock is
 * moved, with API keys since sessions would expire too), an unknown token 404; downloads are rate
 * limited per client address.
 */
import { createHash } from 'node:crypto';
import type { Response } from 'supertest';
import { manualClock } from '../../src/core/clock.js';
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, createSignedInUser, keyClient, setupAdmin, type SessionClient } from '../support/identity.js';
import type { HttpClient } from '../support/harness.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

const clock = manualClock(new Date());
let h: Herald;
let editor: HttpClient;
let viewer: SessionClient;
let src: PostgresSource;
let runId: string;

const binary = (res: Response, cb: (err: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => cb(null, Buffer.concat(chunks)));
};
const pathOf = (url: string) => new URL(url).pathname;

beforeAll(async () => {
  h = await startHerald({ clock, env: { SVC_ROLES: 'api,worker' } });
  const admin = await setupAdmin(h);
  const edna = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  viewer = await createSignedInUser(h, admin, { name: 'Vic', email: 'vic@example.com', role: 'viewer' });
  const key = await createKey(admin, { name: 'edna', scope: 'write', owner_id: (await edna.get('/api/v1/me')).body.id });
  editor = keyClient(h, key.token);
  src = await createPostgresSource(async (sql) => {
    await sql`create table t (id int, name text)`;
    await sql`insert into t values (1, 'one'), (2, 'two')`;
  });
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id;
  const q = await editor.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select id, name from t order by id' }).expect(201);
  const r = await editor.post('/api/v1/reports').send({ title: 'Shared Report', query_id: q.body.id }).expect(201);
  const queued = await editor.post(`/api/v1/reports/${r.body.id}/run`).send({}).expect(202);
  runId = queued.body.id;
  const deadline = Date.now() + 20_000;
  while ((await editor.get(`/api/v1/runs/${runId}`)).body.status !== 'success') {
    if (Date.now() > deadline) throw new Error('run did not finish');
    await new Promise((res) => setTimeout(res, 50));
  }
});
afterAll(async () => {
  await h.stop();
  await src.drop();
});

it('shares a run: the token appears once, the store keeps only its hash, anyone with the URL downloads it', async () => {
  const created = await editor.post('/api/v1/links').send({ run_id: runId, format: 'csv', expires_in_days: 3 });
  expect(created.status).toBe(201);
  const link = created.body;
  expect(link).toMatchObject({ status: 'active', run_id: runId, report_title: 'Shared Report', format: 'csv', download_count: 0, revoked_at: null });
  expect(link.token.length).toBeGreaterThanOrEqual(22); // 128 bits and more, base64url
  expect(link.url).toBe(`${h.settings.publicUrl}/r/${link.token}`);
  expect(Date.parse(link.expires_at) - Date.parse(link.created_at)).toBe(3 * 86_400_000);
  const [row] = await h.process.container.sql`select token_hash from links where id = ${link.id}`;
  expect(row!.token_hash).toBe(createHash('sha256').update(link.token).digest('hex'));
  expect(JSON.stringify((await viewer.get(`/api/v1/links/${link.id}`)).body)).not.toContain(link.token);

  const file = await h.http.get(pathOf(link.url)).set('User-Agent', 'curl/8.0').buffer(true).parse(binary);
  expect(file.status).toBe(200);
  expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(file.headers['content-disposition']).toMatch(/filename="shared-report-.*\.csv"/);
  expect(file.headers['cache-control']).toBe('no-store');
  expect((file.body as Buffer).toString()).toBe('id,name\r\n1,one\r\n2,two\r\n');
  const xlsx = await editor.post('/api/v1/links').send({ run_id: runId, format: 'xlsx' }).expect(201);
  expect(Date.parse(xlsx.body.expires_at) - Date.parse(xlsx.body.created_at)).toBe(7 * 86_400_000);
  const sheet = await h.http.get(pathOf(xlsx.body.url)).buffer(true).parse(binary);
  expect(sheet.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');

  const detail = (await viewer.get(`/api/v1/links/${link.id}`)).body;
  expect(detail).toMatchObject({ download_count: 1, last_downloaded_at: expect.any(String) });
  expect(detail.downloads).toEqual([{ at: expect.any(String), client_address: expect.any(String), user_agent: 'curl/8.0' }]);
  const listed = (await viewer.get('/api/v1/links')).body.items;
  expect(listed.map((l: { id: string }) => l.id).slice(0, 2)).toEqual([xlsx.body.id, link.id]); // newest first
  expect(JSON.stringify(listed)).not.toContain(link.token);
});

it('answers 410 link.revoked at once after a revoke, 404 for an unknown token', async () => {
  const link = (await editor.post('/api/v1/links').send({ run_id: runId, format: 'json' }).expect(201)).body;
  expect((await h.http.get(pathOf(link.url))).status).toBe(200);
  const revoked = await editor.post(`/api/v1/links/${link.id}/revoke`).send({});
  expect(revoked.body).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
  const gone = await h.http.get(pathOf(link.url));
  expect([gone.status, gone.body.code]).toEqual([410, 'link.revoked']);
  expect((await editor.post(`/api/v1/links/${link.id}/revoke`).send({})).status).toBe(200);
  const unknown = await h.http.get('/r/this-is-not-a-token-at-all-0123456789');
  expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
  expect((await viewer.get('/api/v1/links?status=revoked')).body.items.map((l: { id: string }) => l.id)).toContain(link.id);
  expect((await viewer.post(`/api/v1/links/${link.id}/revoke`).send({})).status).toBe(403);
  const [audit] = await h.process.container.sql`select count(*)::int as n from security_events where type = 'link.revoked' and target_id = ${link.id}`;
  expect(audit!.n).toBe(1); // once, though revoked twice
});

it('answers 410 link.expired once the link is past its expiry', async () => {
  const link = (await editor.post('/api/v1/links').send({ run_id: runId, expires_in_days: 1 }).expect(201)).body;
  clock.advance(86_400_000 + 1000);
  const expired = await h.http.get(pathOf(link.url));
  expect([expired.status, expired.body.code]).toEqual([410, 'link.expired']);
  expect((await editor.get(`/api/v1/links/${link.id}`)).body.status).toBe('expired');
  expect((await editor.get('/api/v1/links?status=expired')).body.items.map((l: { id: string }) => l.id)).toContain(link.id);
  const tooLong = await editor.post('/api/v1/links').send({ run_id: runId, expires_in_days: 91 });
  expect(tooLong.body.errors[0]).toMatchObject({ field: 'expires_in_days', code: 'validation.range' });
});

it('refuses a run without a result, and rate limits downloads per client address', async () => {
  const noRun = await editor.post('/api/v1/links').send({ run_id: '0190a0a0-0000-7000-8000-000000000000' });
  expect(noRun.body.errors[0]).toMatchObject({ field: 'run_id', code: 'validation.invalid' });
  let limited: Response | undefined;
  for (let i = 0; i < 70 && !limited; i++) {
    const res = await h.http.get('/r/unknown-token-for-the-rate-limit').set('X-Forwarded-For', '203.0.113.9');
    if (res.status === 429) limited = res;
  }
  expect(limited?.body.code).toBe('rate_limited');
  expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0);
  // Another address is not affected.
  expect((await h.http.get('/r/unknown-token-for-the-rate-limit').set('X-Forwarded-For', '203.0.113.10')).status).toBe(404);
});
