/**
 * GET /events against its contract: a started Herald (api and worker) streams, over a real
 * socket, every kind of event it sends — run.updated (queued, running, finished, failed with an
 * error code), report.updated (created with its next run, updated, paused, resumed, ran,
 * deleted), channel.health (a first delivery makes a channel healthy, a refused one failing),
 * notification.created (the watcher's own) and shutdown when the instance stops — and each event, as an SSE parser delivers it, matches the
 * schema `Event` of openapi.yaml and its data the schema of its kind (ajv).
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { httpPeer, type HttpPeer } from '../support/peers.js';
import { waitForRun } from '../support/runs.js';
import { schemaErrors } from '../support/contract.js';
import { PUBLIC_EVENT_KINDS, problemChanged } from '../../src/domain/events/model.js';

const DATA_SCHEMA: Record<string, string> = {
  'run.updated': 'RunUpdatedEvent', 'report.updated': 'ReportUpdatedEvent', 'channel.health': 'ChannelHealthEvent',
  'notification.created': 'NotificationCreatedEvent', shutdown: 'ShutdownEvent',
};

interface ParsedEvent { event: string; id?: string; data: Record<string, unknown> }

/** A GET /events over a socket, read as it comes; `until` resolves once the parsed events satisfy a check. */
function openEvents(url: string, token: string) {
  let text = '';
  let ended = false;
  const waiters: Array<() => void> = [];
  const wake = () => { for (const w of waiters.splice(0)) w(); };
  let status = 0;
  let contentType = '';
  const request = http.get(`${url}/api/v1/events`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
    status = res.statusCode ?? 0;
    contentType = String(res.headers['content-type']);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => { text += chunk; wake(); });
    res.on('close', () => { ended = true; wake(); });
  });
  request.on('error', () => { ended = true; wake(); });
  /** The complete events so far, parsed as an EventSource does (comments and retry lines skipped). */
  const events = (): ParsedEvent[] => text.split('\n\n').slice(0, -1).flatMap((block) => {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const at = line.indexOf(': ');
      fields.set(line.slice(0, at), line.slice(at + 2));
    }
    if (!fields.has('event')) return [];
    return [{ event: fields.get('event')!, ...(fields.has('id') ? { id: fields.get('id')! } : {}), data: JSON.parse(fields.get('data')!) as Record<string, unknown> }];
  });
  return {
    get status() { return status; },
    get contentType() { return contentType; },
    get text() { return text; },
    events,
    /** Waits (no clock: as long as the test may run) until `check` holds or the stream ends. */
    async until(check: (all: ParsedEvent[], raw: string) => boolean): Promise<void> {
      while (!check(events(), text)) {
        if (ended) throw new Error(`the stream ended before the expected events came:\n${text}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    get ended() { return ended; },
    close() { request.destroy(); },
  };
}

let h: Herald;
let stopped = false;
let admin: SessionClient;
let src: PostgresSource;
let peer: HttpPeer;
let server: http.Server;
let url: string;

beforeAll(async () => {
  h = await startHerald({
    env: { SVC_ROLES: 'api,worker', SVC_OUTBOUND_ALLOW: '127.0.0.1', SVC_DELIVERY_BACKOFF_MS: '20', SVC_DELIVERY_SENDS: '2' },
  });
  admin = await setupAdmin(h);
  await h.process.services.notifier.run(); // its cursor starts here: what comes next is notified
  src = await createPostgresSource(async (sql) => {
    await sql`create table sales (id int primary key, region text not null)`;
    await sql`insert into sales values (1, 'EU'), (2, 'US')`;
  });
  peer = await httpPeer();
  server = http.createServer(h.process.app!);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  if (!stopped) await h.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await peer.close();
  await src.drop();
});

it('streams every kind of event, each matching Event and its kind\'s data schema in openapi.yaml', async () => {
  const viewer = await createSignedInUser(h, admin, { name: 'Vic', email: 'vic@example.com', role: 'viewer' });
  const key = await createKey(admin, { name: 'watcher', scope: 'read', owner_id: viewer.userId });
  const stream = openEvents(url, key.token);
  // The stream has subscribed once its first bytes (the retry line) arrived.
  await stream.until((_e, raw) => raw.includes('retry:'));
  expect([stream.status, stream.contentType]).toEqual([200, 'text/event-stream; charset=utf-8']);

  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Shop')).expect(201)).body.id as string;
  const query = async (name: string, sql: string) =>
    (await admin.post('/api/v1/queries').send({ name, connection_id: connectionId, sql }).expect(201)).body.id as string;
  const good = await query('Sales', 'select id, region from sales order by id');
  const broken = await query('Broken', 'select id / 0 from sales');

  // report.updated: created (with next_run_at), paused, resumed, updated.
  const reportId = (await admin.post('/api/v1/reports').send({
    title: 'Daily sales', query_id: good, schedule: { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' },
  }).expect(201)).body.id as string;
  await admin.post(`/api/v1/reports/${reportId}/pause`).send({}).expect(200);
  await admin.post(`/api/v1/reports/${reportId}/resume`).send({}).expect(200);
  const version = (await admin.get(`/api/v1/reports/${reportId}`).expect(200)).body.version as number;
  await admin.patch(`/api/v1/reports/${reportId}`).send({ title: 'Daily sales (EU)', version }).expect(200);

  // channel.health: a delivery the peer takes (unknown → healthy), then one it refuses (→ failing).
  const channelId = (await admin.post('/api/v1/channels').send({
    name: 'Hook', type: 'webhook', settings: { url: `${peer.url}/hook`, signing_secret: `whsec_${Buffer.from('a'.repeat(32)).toString('base64')}` },
  }).expect(201)).body.id as string;
  await admin.post(`/api/v1/reports/${reportId}/deliveries`).send({ channel_id: channelId, settings: {} }).expect(201);

  // run.updated: queued, running, success with finished_at; report.updated ran with last_run.
  const sent = (await admin.post(`/api/v1/reports/${reportId}/run`).send({}).expect(202)).body.id as string;
  expect((await waitForRun(admin, sent)).status).toBe('success');
  await stream.until((all) => all.some((e) => e.event === 'channel.health' && e.data.health === 'healthy'));

  peer.fallback = { status: 410, body: 'gone' };
  const refused = (await admin.post(`/api/v1/reports/${reportId}/run`).send({}).expect(202)).body.id as string;
  expect((await waitForRun(admin, refused)).status).toBe('failed');

  // run.updated of a failed query, with its error_code.
  const brokenReport = (await admin.post('/api/v1/reports').send({ title: 'Broken', query_id: broken }).expect(201)).body.id as string;
  const failed = (await admin.post(`/api/v1/reports/${brokenReport}/run`).send({ deliver: false }).expect(202)).body.id as string;
  expect((await waitForRun(admin, failed)).status).toBe('failed');
  await admin.delete(`/api/v1/reports/${brokenReport}`).expect(204);

  await stream.until((all) => all.some((e) => e.event === 'report.updated' && e.data.change === 'deleted')
    && all.some((e) => e.event === 'channel.health' && e.data.health === 'failing')
    && all.some((e) => e.event === 'run.updated' && e.data.id === failed && e.data.status === 'failed'));

  // notification.created: the watcher's own (its key expires: the alerts feature opens a problem,
  // the notifier, a scheduler task, tells the key's owner).
  await h.process.container.uow.run((tx) => tx.outbox.add([problemChanged('opened', {
    id: randomUUID(), kind: 'api_key.expiring', fingerprint: `api_key.expiring:${key.id}`, severity: 'warning',
    message: 'An API key expires soon', resource: { type: 'api_key', id: key.id }, openedAt: new Date(),
  })]));
  while (!stream.events().some((e) => e.event === 'notification.created')) {
    await h.process.services.notifier.run();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  // shutdown: the instance stops, the stream ends with it.
  stopped = true;
  await h.stop();
  await stream.until((all) => all.some((e) => e.event === 'shutdown'));

  const events = stream.events();
  const problems: string[] = [];
  for (const e of events) {
    const envelope = await schemaErrors('Event', e);
    if (envelope) problems.push(`${e.event} ${JSON.stringify(e)}: Event: ${envelope}`);
    const data = await schemaErrors(DATA_SCHEMA[e.event] ?? 'none', e.data);
    if (data) problems.push(`${e.event} ${JSON.stringify(e.data)}: ${DATA_SCHEMA[e.event]}: ${data}`);
  }
  expect(problems).toEqual([]);

  // Every kind came, in the variants the schemas describe.
  expect(new Set(events.map((e) => e.event))).toEqual(new Set([...PUBLIC_EVENT_KINDS, 'shutdown']));
  const runs = events.filter((e) => e.event === 'run.updated').map((e) => e.data);
  // Queued, taken, its deliveries handed to their jobs, settled by the last one.
  expect(runs.filter((d) => d.id === sent).map((d) => d.status)).toEqual(['pending', 'running', 'running', 'success']);
  expect(runs.find((d) => d.id === sent && d.status === 'success')).toEqual({
    id: sent, report_id: reportId, status: 'success', trigger: 'manual', finished_at: expect.any(String),
  });
  expect(runs.find((d) => d.id === failed && d.status === 'failed')).toMatchObject({ error_code: 'query.failed', finished_at: expect.any(String) });
  const changes = events.filter((e) => e.event === 'report.updated' && e.data.id === reportId).map((e) => e.data.change);
  expect(changes.slice(0, 4)).toEqual(['created', 'paused', 'resumed', 'updated']);
  expect(changes).toContain('ran');
  const created = events.find((e) => e.event === 'report.updated' && e.data.change === 'created' && e.data.id === reportId)!;
  expect(created.data.next_run_at).toEqual(expect.any(String));
  const paused = events.find((e) => e.event === 'report.updated' && e.data.change === 'paused')!;
  expect(paused.data.next_run_at).toBeNull();
  expect(events.find((e) => e.event === 'report.updated' && e.data.change === 'ran' && e.data.id === reportId)?.data.last_run)
    .toEqual({ id: expect.any(String), status: expect.any(String) });
  expect(events.filter((e) => e.event === 'channel.health').map((e) => [e.data.previous, e.data.health]))
    .toEqual([['unknown', 'healthy'], ['healthy', 'failing']]);
  // Ids increase within the stream; shutdown, the last event, has none.
  const ids = events.filter((e) => e.id !== undefined).map((e) => Number(e.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(ids).size).toBe(ids.length);
  expect(events.at(-1)).toEqual({ event: 'shutdown', data: {} });
  stream.close();
}, 120_000);
