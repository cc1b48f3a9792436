/**
 * In-app notifications on a started Herald (api and worker, real PostgreSQL source and webhook
 * peer): the notifier, run as the scheduler runs it, turns real failed runs, a channel turning
 * failing and system problems (written to the outbox as the alerts feature writes them) into
 * notifications for the right users only; repeats bump one unread notification; the API lists,
 * filters and pages the caller's own and marks them read; GET /events carries each user's
 * notification.created to that user's streams only.
 */
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { startHerald, type Herald, type HttpClient } from '../support/harness.js';
import { createKey, createSignedInUser, keyClient, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { httpPeer, type HttpPeer } from '../support/peers.js';
import { waitForRun } from '../support/runs.js';
import { openSse, serve } from '../support/sse.js';
import { schemaErrors } from '../support/contract.js';
import { problemChanged, type ChangeEvent } from '../../src/domain/events/model.js';

type Page = Response['body'];

let h: Herald;
let src: PostgresSource;
let peer: HttpPeer;
let admin: SessionClient;
let ann: SessionClient;
let eve: SessionClient;
let ed: SessionClient;
let vic: SessionClient;
let connectionId: string;

beforeAll(async () => {
  h = await startHerald({ env: { SVC_ROLES: 'api,worker', SVC_OUTBOUND_ALLOW: '127.0.0.1', SVC_DELIVERY_BACKOFF_MS: '20', SVC_DELIVERY_SENDS: '1' } });
  admin = await setupAdmin(h);
  // The notifier's first pass starts its cursor at the latest event: setup is never notified.
  await h.process.services.notifier.run();
  ann = await createSignedInUser(h, admin, { name: 'Ann', email: 'ann@example.com', role: 'admin' });
  eve = await createSignedInUser(h, admin, { name: 'Eve', email: 'eve@example.com', role: 'editor' });
  ed = await createSignedInUser(h, admin, { name: 'Ed', email: 'ed@example.com', role: 'editor' });
  vic = await createSignedInUser(h, admin, { name: 'Vic', email: 'vic@example.com', role: 'viewer' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table sales (id int primary key, region text not null)`;
    await sql`insert into sales values (1, 'EU'), (2, 'US')`;
  });
  peer = await httpPeer();
  connectionId = (await admin.post('/api/v1/connections').send(src.connection('Shop')).expect(201)).body.id as string;
}, 60_000);

afterAll(async () => {
  await h.stop();
  await peer.close();
  await src.drop();
});

const notify = () => h.process.services.notifier.run();
const list = async (client: HttpClient, query = ''): Promise<Page> => (await client.get(`/api/v1/notifications${query}`).expect(200)).body;

/**
 * Runs the notifier until `check` holds of the client's notifications (a commit's events are
 * numbered at its end, or by the relay a moment later; the notifier reads numbered ones).
 */
async function notifiedUntil(client: HttpClient, check: (page: Page) => boolean): Promise<Page> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await notify();
    const page = await list(client, '?limit=200');
    if (check(page)) return page;
    if (Date.now() > deadline) throw new Error(`not notified as expected: ${JSON.stringify(page)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function report(owner: SessionClient, title: string, sql: string): Promise<string> {
  const queryId = (await owner.post('/api/v1/queries').send({ name: `${title} query`, connection_id: connectionId, sql }).expect(201)).body.id as string;
  return (await owner.post('/api/v1/reports').send({ title, query_id: queryId }).expect(201)).body.id as string;
}

async function run(client: SessionClient, reportId: string, status = 'failed'): Promise<string> {
  const id = (await client.post(`/api/v1/reports/${reportId}/run`).send({}).expect(202)).body.id as string;
  expect((await waitForRun(client, id)).status).toBe(status);
  return id;
}

/** Writes events as a feature's unit of work does (the alerts feature writes problem.opened / problem.resolved so). */
const emit = (events: ChangeEvent[]) => h.process.container.uow.run((tx) => tx.outbox.add(events));

let seen = 0;
const problem = (kind: string, fingerprint: string, extra: Partial<Parameters<typeof problemChanged>[1]> = {}) => ({
  id: randomUUID(), kind, fingerprint, severity: 'critical' as const, message: `${kind} happened`, resource: null,
  openedAt: new Date(Date.UTC(2026, 0, 1, 0, seen++)), ...extra,
});

it('tells a report\'s owner and a run\'s creator of its failures: repeats bump one unread notification, after reading a new one comes', async () => {
  const broken = await report(eve, 'Broken sales', 'select id / 0 from sales');
  const first = await run(eve, broken);
  let page = await notifiedUntil(eve, (p) => p.items.length > 0);
  expect(page.unread_count).toBe(1);
  expect(page.items).toEqual([expect.objectContaining({
    kind: 'run.failed', severity: 'critical', title: '"Broken sales" failed', body: expect.stringContaining('query.failed'),
    resource: { type: 'run', id: first }, count: 1, read_at: null,
  })]);
  const firstAt = page.items[0].updated_at as string;

  // A second failure: the same notification, counted twice, about the newer run.
  const second = await run(eve, broken);
  page = await notifiedUntil(eve, (p) => p.items[0]?.count === 2);
  expect([page.items.length, page.unread_count, page.items[0].resource.id]).toEqual([1, 1, second]);
  expect(page.items[0].updated_at > firstAt).toBe(true);
  // The run's event again (as a resend of its deliveries sends it): told already, not counted.
  await emit([{ type: 'run.updated', data: { id: second, report_id: broken, status: 'failed', trigger: 'manual' } }]);
  // An admin runs it: the owner's count grows, and the admin (its creator) is told too.
  const byAdmin = await run(admin, broken);
  page = await notifiedUntil(eve, (p) => p.items[0]?.count === 3);
  expect(page.items.length).toBe(1);
  expect((await list(admin)).items.map((n: Page) => [n.kind, n.count])).toEqual([['run.failed', 1]]);

  // Read, then a new failure: a new unread notification; the read one stays as it was.
  const readOne = (await eve.post(`/api/v1/notifications/${page.items[0].id}/read`).send().expect(200)).body;
  expect(readOne).toMatchObject({ id: page.items[0].id, count: 3, read_at: expect.any(String) });
  const third = await run(eve, broken);
  page = await notifiedUntil(eve, (p) => p.items.length === 2);
  expect(page.items.map((n: Page) => [n.resource.id, n.count, n.read_at === null])).toEqual([[third, 1, true], [byAdmin, 3, false]]);
  expect(page.unread_count).toBe(1);
  // Nobody else heard of it.
  for (const other of [ann, ed, vic]) expect(await list(other)).toEqual({ items: [], unread_count: 0 });
}, 60_000);

it('tells the owners of the reports that deliver through a channel that turned failing', async () => {
  peer.fallback = { status: 410, body: 'gone' };
  const channelId = (await admin.post('/api/v1/channels').send({
    name: 'Ops hook', type: 'webhook', settings: { url: `${peer.url}/hook`, signing_secret: `whsec_${Buffer.from('b'.repeat(32)).toString('base64')}` },
  }).expect(201)).body.id as string;
  const eves = await report(eve, 'Eve sales', 'select id, region from sales');
  const eds = await report(ed, 'Ed sales', 'select region from sales');
  for (const [client, id] of [[eve, eves], [ed, eds]] as const) {
    await client.post(`/api/v1/reports/${id}/deliveries`).send({ channel_id: channelId, settings: {} }).expect(201);
  }
  await run(eve, eves);
  const page = await notifiedUntil(ed, (p) => p.items.length > 0);
  const failing = { kind: 'channel.failing', severity: 'warning', title: 'Channel "Ops hook" is failing', resource: { type: 'channel', id: channelId }, count: 1 };
  expect(page.items).toEqual([expect.objectContaining(failing)]);
  // Eve, whose report's run failed with its delivery, hears of both.
  const eveNews = (await list(eve, '?unread=true')).items.filter((n: Page) => n.kind === 'channel.failing' || n.title === '"Eve sales" failed');
  expect(eveNews.map((n: Page) => [n.kind, n.body])).toEqual([['channel.failing', expect.any(String)], ['run.failed', expect.stringContaining('delivery.all_failed')]]);
  expect((await list(vic)).items).toEqual([]);
  peer.fallback = { status: 200, body: 'ok' };
}, 60_000);

it('tells enabled admins of system problems, and the owner of an expiring key of their key; disabled users hear nothing', async () => {
  const dan = await createSignedInUser(h, admin, { name: 'Dan', email: 'dan@example.com', role: 'admin' });
  const danVersion = (await admin.get(`/api/v1/users/${dan.userId}`).expect(200)).body.version as number;
  await admin.patch(`/api/v1/users/${dan.userId}`).send({ enabled: false, version: danVersion }).expect(200);
  const key = await createKey(admin, { name: 'vic-cli', scope: 'read', owner_id: vic.userId });

  const stalled = problem('scheduler.stalled', 'scheduler.stalled');
  const expiring = problem('api_key.expiring', `api_key.expiring:${key.id}`, { severity: 'warning', resource: { type: 'api_key', id: key.id } });
  await emit([problemChanged('opened', stalled), problemChanged('opened', expiring)]);
  const annPage = await notifiedUntil(ann, (p) => p.items.length === 2);
  expect(annPage.items).toEqual([
    expect.objectContaining({ kind: 'problem.opened', severity: 'warning', resource: { type: 'problem', id: expiring.id }, title: 'api_key.expiring happened' }),
    expect.objectContaining({ kind: 'problem.opened', severity: 'critical', resource: { type: 'problem', id: stalled.id } }),
  ]);
  expect((await list(admin, '?unread=true')).items.filter((n: Page) => n.kind === 'problem.opened')).toHaveLength(2);
  // The key's owner, a viewer, of their key only (through the key, acting as its owner).
  const vicPage = await list(keyClient(h, key.token));
  expect(vicPage.items).toEqual([expect.objectContaining({ kind: 'problem.opened', resource: { type: 'api_key', id: key.id } })]);
  expect((await list(eve)).items.filter((n: Page) => n.kind.startsWith('problem.'))).toEqual([]);
  expect((await list(ed)).items.filter((n: Page) => n.kind.startsWith('problem.'))).toEqual([]);

  await emit([problemChanged('resolved', { ...stalled, resolvedAt: new Date(Date.UTC(2026, 0, 2)) })]);
  const resolved = await notifiedUntil(ann, (p) => p.items.some((n: Page) => n.kind === 'problem.resolved'));
  expect(resolved.items.find((n: Page) => n.kind === 'problem.resolved')).toMatchObject({ severity: 'info', title: 'Resolved: scheduler.stalled happened' });

  // Dan, disabled, was told of nothing: enabled again, he finds no notification.
  const version = (await admin.get(`/api/v1/users/${dan.userId}`).expect(200)).body.version as number;
  await admin.patch(`/api/v1/users/${dan.userId}`).send({ enabled: true, version }).expect(200);
  const danKey = await createKey(admin, { name: 'dan-cli', scope: 'read', owner_id: dan.userId });
  expect(await list(keyClient(h, danKey.token))).toEqual({ items: [], unread_count: 0 });
}, 60_000);

it('tells of each event once when two processes\' notifiers run at the same time', async () => {
  const other = await startHerald({ iso: h.iso });
  try {
    const burst = Array.from({ length: 30 }, (_v, n) => problem('queue.backlog', `queue.backlog:${n}`));
    await emit(burst.map((p) => problemChanged('opened', p)));
    const told = new Set(burst.map((p) => p.id));
    const mine = (p: Page) => p.items.filter((n: Page) => told.has(n.resource?.id));
    for (let i = 0; i < 3; i += 1) await Promise.all([notify(), other.process.services.notifier.run(), notify(), other.process.services.notifier.run()]);
    const page = await notifiedUntil(ann, (p) => mine(p).length === burst.length);
    expect(mine(page).map((n: Page) => n.count)).toEqual(burst.map(() => 1));
  } finally {
    await other.stop();
  }
}, 60_000);

it('pages newest first with the unread count on every page, filters by unread, and marks read one by one, all or before a time', async () => {
  const grace = await createSignedInUser(h, admin, { name: 'Grace', email: 'grace@example.com', role: 'admin' });
  const opened = [1, 2, 3, 4, 5].map((n) => problem('storage.error', `storage.error:${n}`, { openedAt: new Date(Date.UTC(2026, 1, n)) }));
  await emit(opened.map((p) => problemChanged('opened', p)));
  await notifiedUntil(grace, (p) => p.items.length === 5);

  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(grace, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    expect(page.unread_count).toBe(5);
    ids.push(...page.items.map((n: Page) => n.id));
    cursor = page.next_cursor;
  } while (cursor);
  const byNewest = [...opened].reverse().map((p) => p.id);
  const resourceOf = async (id: string) => (await list(grace, '?limit=200')).items.find((n: Page) => n.id === id).resource.id;
  expect(await Promise.all(ids.map(resourceOf))).toEqual(byNewest);
  expect((await grace.get('/api/v1/notifications?cursor=nonsense').expect(422)).body.errors[0].field).toBe('cursor');

  // One read (twice: the second answers it as it is), then the unread filter both ways.
  const first = (await grace.post(`/api/v1/notifications/${ids[0]}/read`).send().expect(200)).body;
  const again = (await grace.post(`/api/v1/notifications/${ids[0]}/read`).send().expect(200)).body;
  expect(again).toEqual(first);
  expect((await list(grace, '?unread=false')).items.map((n: Page) => n.id)).toEqual([ids[0]]);
  expect((await list(grace, '?unread=true')).items.map((n: Page) => n.id)).toEqual(ids.slice(1));

  // Another user's id, or an unknown one: not found, never forbidden.
  for (const client of [vic, ann]) {
    const res = await client.post(`/api/v1/notifications/${ids[1]}/read`).send().expect(404);
    expect(res.body.code).toBe('not_found');
  }
  await grace.post(`/api/v1/notifications/${randomUUID()}/read`).send().expect(404);
  expect((await list(grace)).unread_count).toBe(4);

  // Read-all before 3 February marks the two older ones; then without a body, the rest.
  expect((await grace.post('/api/v1/notifications/read-all').send({ before: '2026-02-03T00:00:00Z' }).expect(200)).body).toEqual({ marked: 2, unread_count: 2 });
  expect((await list(grace, '?unread=true')).items.map((n: Page) => n.id)).toEqual(ids.slice(1, 3));
  expect((await grace.post('/api/v1/notifications/read-all').expect(200)).body).toEqual({ marked: 2, unread_count: 0 });
  expect((await grace.post('/api/v1/notifications/read-all').send({}).expect(200)).body).toEqual({ marked: 0, unread_count: 0 });
}, 60_000);

it('carries each user\'s notification.created to that user\'s event streams only', async () => {
  const server = await serve(h.process.app!);
  const vicKey = await createKey(admin, { name: 'vic-stream', scope: 'read', owner_id: vic.userId });
  const eveKey = await createKey(admin, { name: 'eve-stream', scope: 'read', owner_id: eve.userId });
  const vicStream = await openSse(server.url, vicKey.token);
  const eveStream = await openSse(server.url, eveKey.token);
  try {
    const created = (s: typeof vicStream) => s.events.filter((e) => e.event === 'notification.created');
    // Eve's notification is written before Vic's second: once that reaches Vic's stream, anything of Eve's would have.
    const broken = await report(eve, 'Broken stream', 'select id / 0 from sales');
    await run(eve, broken);
    const vicKeyProblem = problem('api_key.expiring', `api_key.expiring:${vicKey.id}`, { resource: { type: 'api_key', id: vicKey.id } });
    await emit([problemChanged('opened', vicKeyProblem)]);
    await notifiedUntil(vic, (p) => p.items.some((n: Page) => n.resource.id === vicKey.id));
    await notifiedUntil(eve, (p) => p.items.some((n: Page) => n.title === '"Broken stream" failed'));
    await emit([problemChanged('resolved', { ...vicKeyProblem, resolvedAt: new Date(Date.UTC(2026, 5, 1)) })]);
    await notifiedUntil(vic, (p) => p.items.some((n: Page) => n.kind === 'problem.resolved'));
    await vicStream.until((all) => all.some((e) => e.event === 'notification.created' && e.data.kind === 'problem.resolved'));
    await eveStream.until((all) => all.some((e) => e.event === 'notification.created' && e.data.kind === 'run.failed'));

    const vicIds = new Set((await list(vic, '?limit=200')).items.map((n: Page) => n.id));
    const eveIds = new Set((await list(eve, '?limit=200')).items.map((n: Page) => n.id));
    expect(created(vicStream).map((e) => e.data.kind)).toEqual(['problem.opened', 'problem.resolved']);
    expect(created(vicStream).every((e) => vicIds.has(e.data.id as string))).toBe(true);
    expect(created(eveStream).every((e) => eveIds.has(e.data.id as string))).toBe(true);
    expect(created(eveStream).some((e) => vicIds.has(e.data.id as string))).toBe(false);
    expect(created(vicStream).at(-1)!.data.unread_count).toBe((await list(vic)).unread_count);
    for (const e of [...created(vicStream), ...created(eveStream)]) {
      expect(await schemaErrors('Event', { event: e.event, id: String(e.id), data: e.data })).toBeNull();
      expect(await schemaErrors('NotificationCreatedEvent', e.data)).toBeNull();
    }
  } finally {
    await vicStream.close();
    await eveStream.close();
    await server.close();
  }
}, 60_000);
