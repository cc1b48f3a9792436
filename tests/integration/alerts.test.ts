/**
 * System alerts (GET/PUT /settings/alerts, POST /settings/alerts/test) and the problems behind
 * them, on a real store and Redis, with real peers on loopback: a webhook receiver as the alert
 * channel, an SMTP server behind the email fallback channel. The operations tick is called
 * directly with a manual clock, so that time decides and nothing waits: every problem kind opens,
 * repeats after repeat_minutes and resolves when its check passes again, and its alerts go to the
 * channels, and to the fallback only when every alert channel failed.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { manualClock } from '../../src/core/clock.js';
import { newId } from '../../src/core/ids.js';
import { startHerald, type Herald } from '../support/harness.js';
import { ADMIN, createSignedInUser, setupAdmin, signIn, type SessionClient } from '../support/identity.js';
import { httpPeer, smtpPeer, type HttpPeer, type SmtpPeer } from '../support/peers.js';
import { privateRedis, until, type PrivateRedis } from '../support/private-redis.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

const T0 = new Date('2026-06-01T08:00:00.000Z');
const clock = manualClock(T0);
const healthy = async () => ({ healthy: true, reason: null });

let h: Herald;
let admin: SessionClient;
let store: postgres.Sql;
let hook: HttpPeer;
let smtp: SmtpPeer;
let redis: PrivateRedis;
let hookId: string;
let mailId: string;
let gitopsDir: string;
let src: PostgresSource;

const tick = () => h.process.services.operations.tick(clock.now(), healthy);
const alertsOf = (peer: HttpPeer) => peer.requests.map((r) => JSON.parse(r.body) as { type: string; alert: { event: string; kind: string; fingerprint: string; message: string; resource: unknown } ; body: string });
const openProblems = async () => (await store<Array<{ fingerprint: string }>>`select fingerprint from system_problems where resolved_at is null order by fingerprint`).map((r) => r.fingerprint);
const history = async (fingerprint: string) => store<Array<{ opened_at: Date; resolved_at: Date | null; alerts: number }>>`
  select opened_at, resolved_at, alerts from system_problems where fingerprint = ${fingerprint} order by opened_at`;
/** Time passes while a scheduler keeps ticking (the test of scheduler.stalled moves the clock itself). */
const advance = async (ms: number) => { clock.set(new Date(clock.now().getTime() + ms)); await recordTick(); };
const recordTick = () => store`insert into ops_status (key, value, updated_at) values ('scheduler.tick', ${store.json({ at: clock.now().toISOString() })}, now())
  on conflict (key) do update set value = excluded.value`;

async function settings(body: Record<string, unknown>, status = 200) {
  const current = (await admin.get('/api/v1/settings/alerts').expect(200)).body as { version: number };
  return admin.put('/api/v1/settings/alerts').send({ version: current.version, ...body }).expect(status);
}

beforeAll(async () => {
  redis = await privateRedis();
  await redis.start();
  hook = await httpPeer();
  smtp = await smtpPeer();
  gitopsDir = path.join((await import('node:os')).tmpdir(), `herald-alerts-gitops-${process.pid}`);
  await mkdir(gitopsDir, { recursive: true });
  h = await startHerald({
    clock,
    env: {
      SVC_ROLES: 'api', SVC_OUTBOUND_ALLOW: '127.0.0.1', SVC_REDIS_URL: redis.url, SVC_DELIVERY_SENDS: '2', SVC_DELIVERY_BACKOFF_MS: '10',
      SVC_GITOPS_DIR: gitopsDir,
    },
  });
  admin = await setupAdmin(h);
  src = await createPostgresSource(async () => undefined);
  store = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });
  hookId = (await admin.post('/api/v1/channels').send({ name: 'Ops hook', type: 'webhook', settings: { url: `${hook.url}/alerts` } }).expect(201)).body.id;
  mailId = (await admin.post('/api/v1/channels').send({
    name: 'On-call mail', type: 'email', settings: { host: '127.0.0.1', port: smtp.port, tls: 'none', from: 'Herald <herald@example.com>' },
  }).expect(201)).body.id;
}, 30_000);

afterAll(async () => {
  await store?.end();
  await src?.drop();
  await h?.stop();
  await hook?.close();
  await smtp?.close();
  await redis?.remove();
  await rm(gitopsDir, { recursive: true, force: true });
});

beforeEach(async () => {
  // Every test starts healthy: a tick just completed, nothing open, the peers empty.
  await recordTick();
  await store`update system_problems set resolved_at = ${clock.now()} where resolved_at is null`;
  await store`update channels set health = 'healthy'`;
  hook.requests.length = 0;
  hook.script.length = 0;
  hook.fallback = { status: 200, body: 'ok' };
  smtp.messages.length = 0;
});

describe('settings', () => {
  it('answers the defaults, then saves channels, fallback, repeat, kinds, thresholds and a heartbeat whose URLs never come back', async () => {
    const before = (await admin.get('/api/v1/settings/alerts').expect(200)).body;
    expect(before).toMatchObject({
      channel_ids: [], fallback_channel_id: null, repeat_minutes: 240, heartbeat: null,
      thresholds: { scheduler_grace_seconds: 180, queue_backlog_seconds: 600, failure_streak: 3, disk_free_percent: 10 },
    });
    expect(before.kinds).toContain('queue.unavailable');
    const res = await settings({
      channel_ids: [hookId], fallback_channel_id: mailId, repeat_minutes: 30, thresholds: { failure_streak: 2 },
      heartbeat: { url: `${hook.url}/ping/secret-token-123`, method: 'POST', interval_seconds: 60, fail_url: `${hook.url}/fail/secret-token-123` },
    });
    expect(res.body).toMatchObject({
      channel_ids: [hookId], fallback_channel_id: mailId, repeat_minutes: 30,
      thresholds: { failure_streak: 2, scheduler_grace_seconds: 180 },
      heartbeat: { url: { configured: true }, fail_url: { configured: true }, method: 'POST', interval_seconds: 60, grace_seconds: null },
    });
    expect(JSON.stringify(res.body)).not.toContain('secret-token-123');
    const [row] = await store<Array<{ value: unknown; secrets_sealed: string }>>`select value, secrets_sealed from workspace_settings where key = 'alerts'`;
    expect(JSON.stringify(row)).not.toContain('secret-token-123');
    // Left out, the heartbeat stays; {configured: true} keeps a URL.
    const kept = await settings({ channel_ids: [hookId], fallback_channel_id: mailId, repeat_minutes: 30, thresholds: { failure_streak: 2 } });
    expect(kept.body.heartbeat).toMatchObject({ url: { configured: true }, method: 'POST' });
    const events = (await admin.get('/api/v1/security-events?type=settings.alerts_updated').expect(200)).body.items;
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(events)).not.toContain('secret-token-123');
  });

  it('refuses unknown channels, a fallback among the alert channels, a heartbeat without URL or to a refused address, and a stale version', async () => {
    const res = await settings({ channel_ids: [hookId, newId()], fallback_channel_id: hookId, heartbeat: { url: 'http://10.1.2.3/ping', interval_seconds: 60, fail_url: 'ftp://x' } }, 422);
    expect(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code])).toEqual([
      ['channel_ids.1', 'validation.invalid'], ['fallback_channel_id', 'validation.invalid'],
      ['heartbeat.url', 'validation.format'], ['heartbeat.fail_url', 'validation.format'],
    ]);
    const off = await settings({ channel_ids: [], fallback_channel_id: null, heartbeat: null });
    const noUrl = await admin.put('/api/v1/settings/alerts').send({ version: off.body.version, channel_ids: [], fallback_channel_id: null, heartbeat: { interval_seconds: 60 } }).expect(422);
    expect(noUrl.body.errors).toEqual([expect.objectContaining({ field: 'heartbeat.url', code: 'validation.required' })]);
    const stale = await admin.put('/api/v1/settings/alerts').send({ version: off.body.version - 1, channel_ids: [], fallback_channel_id: null }).expect(409);
    expect(stale.body.code).toBe('conflict.version');
  });

  it('keeps a channel the alert settings use from being deleted (409 channel.in_use naming them)', async () => {
    const spare = (await admin.post('/api/v1/channels').send({ name: 'Spare hook', type: 'webhook', settings: { url: `${hook.url}/spare` } }).expect(201)).body.id;
    await settings({ channel_ids: [hookId], fallback_channel_id: spare });
    const res = await admin.delete(`/api/v1/channels/${spare}`).expect(409);
    expect(res.body).toMatchObject({ code: 'channel.in_use', dependents: [{ type: 'settings', name: expect.stringContaining('System alerts') }] });
    await settings({ channel_ids: [hookId], fallback_channel_id: null });
    await admin.delete(`/api/v1/channels/${spare}`).expect(204);
  });

  it('is for admins only', async () => {
    const editor = await createSignedInUser(h, admin, { name: 'Eddie Editor', email: 'eddie@example.com', role: 'editor' });
    expect((await editor.get('/api/v1/settings/alerts')).status).toBe(403);
    expect((await editor.post('/api/v1/settings/alerts/test')).status).toBe(403);
  });
});

describe('problems and their alerts', () => {
  beforeAll(async () => {
    await settings({ channel_ids: [hookId], fallback_channel_id: mailId, repeat_minutes: 30, thresholds: { failure_streak: 2 }, heartbeat: null });
  });

  it('opens a problem once with an alert, repeats it every repeat_minutes while it lasts, and says when it is over and how long it lasted', async () => {
    await store`update channels set health = 'failing' where id = ${hookId}`;
    // The alert channel itself is failing by its health, yet still answers: the alert goes through.
    expect(await tick()).toBe(true);
    expect(await openProblems()).toEqual([`channel.failing:${hookId}`]);
    expect(alertsOf(hook).map((a) => [a.type, a.alert.event, a.alert.fingerprint])).toEqual([['system.alert', 'opened', `channel.failing:${hookId}`]]);
    expect(alertsOf(hook)[0]!.body).toContain('Ops hook');
    expect(alertsOf(hook)[0]!.body).toContain(`/channels/${hookId}`);
    await advance(10 * 60_000);
    await tick();
    expect(hook.requests).toHaveLength(1); // not yet: 10 of 30 minutes
    await advance(21 * 60_000);
    await tick();
    expect(alertsOf(hook).map((a) => a.alert.event)).toEqual(['opened', 'repeated']);
    await store`update channels set health = 'healthy' where id = ${hookId}`;
    await advance(4 * 60_000);
    await tick();
    expect(await openProblems()).toEqual([]);
    const resolved = alertsOf(hook)[2]!;
    expect(resolved.alert.event).toBe('resolved');
    expect(resolved.body).toContain('lasted 35 min');
    expect(await history(`channel.failing:${hookId}`)).toEqual([expect.objectContaining({ alerts: 2, resolved_at: expect.any(Date) })]);
    expect(smtp.messages).toHaveLength(0); // the alert channel worked: the fallback stays silent
    const status = (await admin.get('/api/v1/settings/alerts').expect(200)).body.status;
    expect(status.last_alert).toMatchObject({ kind: 'channel.failing', event: 'resolved' });
    expect(status.channels).toEqual([expect.objectContaining({ channel_id: hookId, last_sent_at: expect.any(String), last_error: null })]);
  });

  it('keeps the history: GET /system/problems lists open and resolved problems, newest first, and one problem shows its alerts', async () => {
    await store`update channels set health = 'failing' where id = ${hookId}`;
    await tick();
    await advance(31 * 60_000);
    await tick();
    await store`update channels set health = 'healthy' where id = ${hookId}`;
    await advance(60_000);
    await tick();
    const page = (await admin.get(`/api/v1/system/problems?state=resolved&kind=channel.failing&limit=1`).expect(200)).body;
    expect(page.items).toHaveLength(1);
    const latest = page.items[0];
    expect(latest).toMatchObject({ kind: 'channel.failing', fingerprint: `channel.failing:${hookId}`, alerts: 2, resolved_at: clock.now().toISOString() });
    expect(page.next_cursor).toEqual(expect.any(String)); // the earlier test's problem of the same channel
    const older = (await admin.get(`/api/v1/system/problems?state=resolved&kind=channel.failing&limit=1&cursor=${page.next_cursor}`).expect(200)).body;
    expect(new Date(older.items[0].opened_at).getTime()).toBeLessThan(new Date(latest.opened_at).getTime());
    expect((await admin.get('/api/v1/system/problems?state=open').expect(200)).body.items).toEqual([]);
    const detail = (await admin.get(`/api/v1/system/problems/${latest.id}`).expect(200)).body;
    expect(detail.alerts.map((a: { event: string; channel_id: string; status: string; fallback: boolean }) => [a.event, a.channel_id, a.status, a.fallback])).toEqual([
      ['opened', hookId, 'sent', false], ['repeated', hookId, 'sent', false], ['resolved', hookId, 'sent', false],
    ]);
    expect((await admin.get(`/api/v1/system/problems/${newId()}`).expect(404)).body.code).toBe('not_found');
  });

  it('sends through the fallback only when every alert channel failed, saying which one failed and why', async () => {
    hook.fallback = { status: 500, body: 'down' };
    await store`update channels set health = 'failing' where id = ${mailId}`;
    await tick();
    expect(hook.requests).toHaveLength(2); // SVC_DELIVERY_SENDS=2: the quick retry, then give up
    await until(async () => smtp.messages.length === 1, 'the fallback mail');
    const mail = smtp.messages[0]!;
    expect(mail.subject).toContain('[Herald] Warning: The channel "On-call mail" is failing');
    expect(mail.text).toContain('every alert channel failed');
    expect(mail.text).toMatch(/Ops hook: delivery\.\w+/);
    expect(smtp.envelopes[0]!.to).toEqual(['ada@example.com']);
    const status = (await admin.get('/api/v1/settings/alerts').expect(200)).body.status;
    expect(status.channels).toEqual(expect.arrayContaining([
      expect.objectContaining({ channel_id: hookId, last_error: expect.stringContaining('500') }),
      expect.objectContaining({ channel_id: mailId, last_sent_at: expect.any(String) }),
    ]));
    await store`update channels set health = 'healthy' where id = ${mailId}`;
  });

  it('records a problem of a kind that does not alert, without sending', async () => {
    await settings({ channel_ids: [hookId], fallback_channel_id: mailId, repeat_minutes: 30, thresholds: { failure_streak: 2 }, kinds: ['queue.unavailable'] });
    try {
      await store`update channels set health = 'failing' where id = ${hookId}`;
      await tick();
      expect(await openProblems()).toEqual([`channel.failing:${hookId}`]);
      expect(hook.requests).toHaveLength(0);
      await store`update channels set health = 'healthy' where id = ${hookId}`;
      await tick();
      expect(await openProblems()).toEqual([]);
      expect(hook.requests).toHaveLength(0);
    } finally {
      await settings({ channel_ids: [hookId], fallback_channel_id: mailId, repeat_minutes: 30, thresholds: { failure_streak: 2 } });
    }
  });

  it('scheduler.stalled: opens when no scheduler completed a tick past the grace, resolves at the next tick', async () => {
    clock.set(new Date(clock.now().getTime() + 181_000));
    await tick();
    expect(await openProblems()).toEqual(['scheduler.stalled']);
    expect(alertsOf(hook)[0]!.alert).toMatchObject({ event: 'opened', kind: 'scheduler.stalled' });
    await recordTick();
    await tick();
    expect(await openProblems()).toEqual([]);
    expect(alertsOf(hook).map((a) => a.alert.event)).toEqual(['opened', 'resolved']);
  });

  it('queue.unavailable: opens while Redis is down, resolves when it answers again', async () => {
    await redis.stop();
    try {
      await tick();
      expect(await openProblems()).toEqual(['queue.unavailable']);
      expect((await h.http.get('/health/ready')).body.components.redis.status).toBe('unhealthy');
    } finally {
      await redis.start();
    }
    await until(async () => (await h.http.get('/health/ready')).status === 200, 'Redis back', 20_000, 200);
    await tick();
    expect(await openProblems()).toEqual([]);
    expect(alertsOf(hook).map((a) => [a.alert.kind, a.alert.event])).toEqual([['queue.unavailable', 'opened'], ['queue.unavailable', 'resolved']]);
  });

  it('queue.backlog, report.failing and runs.lost: from the runs in the store', async () => {
    const reportId = await aReport('Backlogged');
    const runId = (await admin.post(`/api/v1/reports/${reportId}/run`).send({}).expect(202)).body.id as string;
    await advance(11 * 60_000);
    await tick();
    expect(await openProblems()).toEqual(['queue.backlog']);
    // Two failures in a row (failure_streak 2), the second lost by its workers.
    await store`update runs set status = 'failed', error_code = 'query.failed', finished_at = ${new Date(clock.now().getTime() - 1000)} where id = ${runId}`;
    const lost = newId();
    await store`insert into runs (id, report_id, trigger, status, error_code, created_at, finished_at)
      values (${lost}, ${reportId}, 'manual', 'failed', 'run.worker_lost', ${clock.now()}, ${clock.now()})`;
    await store`update reports set last_run_id = ${lost} where id = ${reportId}`;
    await tick();
    expect(await openProblems()).toEqual(['report.failing:' + reportId, 'runs.lost'].sort());
    const failing = alertsOf(hook).find((a) => a.alert.kind === 'report.failing')!;
    expect(failing.alert.message).toBe('The report "Backlogged" failed 2 times in a row (run.worker_lost)');
    // A success ends the streak; an hour later no run was lost within the hour.
    const ok = newId();
    await store`insert into runs (id, report_id, trigger, status, created_at, finished_at) values (${ok}, ${reportId}, 'manual', 'success', ${clock.now()}, ${clock.now()})`;
    await store`update reports set last_run_id = ${ok} where id = ${reportId}`;
    await advance(61 * 60_000);
    await tick();
    expect(await openProblems()).toEqual([]);
    expect(alertsOf(hook).filter((a) => a.alert.event === 'resolved').map((a) => a.alert.kind).sort()).toEqual(['queue.backlog', 'report.failing', 'runs.lost']);
  });

  it('storage.error: opens while result files cannot be written, resolves when they can', async () => {
    const results = path.join(h.settings.dataDir, 'results');
    await rm(results, { recursive: true, force: true });
    await writeFile(results, 'not a folder');
    try {
      await tick();
      expect(await openProblems()).toEqual(['storage.error']);
    } finally {
      await rm(results, { force: true });
    }
    await tick();
    expect(await openProblems()).toEqual([]);
  });

  it('retention.failing: opens while the retention sweep fails, resolves once it works', async () => {
    await h.process.services.opsStatus.put('retention', { failing: true, error: 'EIO', since: clock.now().toISOString() }, clock.now());
    await tick();
    expect(await openProblems()).toEqual(['retention.failing']);
    // The hourly sweep runs (and works) on a scheduler; the same task is run here.
    await h.process.services.retention.sweep(clock.now());
    await h.process.services.opsStatus.put('retention', { failing: false, error: null, since: null }, clock.now());
    await tick();
    expect(await openProblems()).toEqual([]);
  });

  it('gitops.failing: opens after three reconciles of a broken configuration directory, resolves once it applies', async () => {
    const reconciler = h.process.services.reconciler!;
    await writeFile(path.join(gitopsDir, 'broken.yaml'), 'reports: [ {title: unclosed\n');
    for (let i = 0; i < 3; i += 1) {
      await reconciler.tick(clock.now());
      await advance(61_000);
    }
    await tick();
    expect(await openProblems()).toEqual(['gitops.failing']);
    await rm(path.join(gitopsDir, 'broken.yaml'));
    await reconciler.tick(clock.now());
    await tick();
    expect(await openProblems()).toEqual([]);
  });

  it('api_key.expiring: tells at 14, then again at 7 days, and resolves when the key is revoked', async () => {
    const key = (await admin.post('/api/v1/api-keys').send({
      name: 'ci pipeline', scope: 'read', expires_at: new Date(clock.now().getTime() + 10 * 86_400_000).toISOString(),
    }).expect(201)).body.key as { id: string };
    await tick();
    expect(await openProblems()).toEqual([`api_key.expiring:${key.id}`]);
    expect(alertsOf(hook)[0]!.alert).toMatchObject({ event: 'opened', resource: { type: 'api_key', id: key.id } });
    await advance(4 * 86_400_000);
    await tick();
    expect(alertsOf(hook).map((a) => a.alert.event)).toEqual(['opened', 'repeated']);
    expect(alertsOf(hook)[1]!.alert.message).toContain('expires in 6 day(s)');
    admin = await signIn(h, ADMIN.email, ADMIN.password); // four days idle: the session ended
    await admin.post(`/api/v1/api-keys/${key.id}/revoke`).expect(200);
    await tick();
    expect(await openProblems()).toEqual([]);
  });

  it('lets exactly one process evaluate at a time (a lease on the store)', async () => {
    const second = await startHerald({ clock, iso: h.iso, env: { SVC_ROLES: 'api', SVC_REDIS_URL: redis.url } });
    try {
      const both = await Promise.all([tick(), second.process.services.operations.tick(clock.now(), healthy)]);
      expect(both.filter(Boolean)).toHaveLength(1);
      // The holder keeps it; the other stays out while the lease lasts.
      expect(await second.process.services.operations.tick(clock.now(), healthy)).toBe(!both[0]);
    } finally {
      await second.stop();
    }
  });

  it('POST /settings/alerts/test sends a test alert through each channel and the fallback, and calls the heartbeat once', async () => {
    await settings({ channel_ids: [hookId], fallback_channel_id: mailId, repeat_minutes: 30, heartbeat: { url: `${hook.url}/ping/tok`, method: 'GET', interval_seconds: 60 } });
    hook.script.push({ status: 200 }, { status: 503 });
    const res = await admin.post('/api/v1/settings/alerts/test').expect(200);
    expect(res.body.targets.map((t: { target: string; ok: boolean; status?: number }) => [t.target, t.ok, t.status])).toEqual([
      ['channel', true, undefined], ['fallback', true, undefined], ['heartbeat', false, 503],
    ]);
    expect(hook.requests.map((r) => [r.method, r.path])).toEqual([['POST', '/alerts'], ['GET', '/ping/tok']]);
    expect(alertsOf({ ...hook, requests: hook.requests.slice(0, 1) })[0]!.alert.event).toBe('test');
    await until(async () => smtp.messages.length === 1, 'the test mail');
    expect(smtp.messages[0]!.subject).toContain('[Herald] Test');
    expect(await openProblems()).toEqual([]);
  });
});

async function aReport(title: string): Promise<string> {
  const conn = (await admin.post('/api/v1/connections').send(src.connection(`Store ${title}`)).expect(201)).body.id;
  const q = (await admin.post('/api/v1/queries').send({ name: `Q ${title}`, connection_id: conn, sql: 'select 1 as one' }).expect(201)).body.id;
  return (await admin.post('/api/v1/reports').send({ title, query_id: q }).expect(201)).body.id;
}

describe('the heartbeat', () => {
  const beats = () => hook.requests.filter((r) => r.path === '/beat/tok-1');
  const fails = () => hook.requests.filter((r) => r.path === '/fail/tok-2');
  const unhealthy = async () => ({ healthy: false, reason: 'redis: Redis does not answer' });
  const hb = async () => (await admin.get('/api/v1/settings/alerts').expect(200)).body.status.heartbeat;

  beforeAll(async () => {
    await settings({
      channel_ids: [], fallback_channel_id: null,
      heartbeat: { url: `${hook.url}/beat/tok-1`, method: 'HEAD', interval_seconds: 60, fail_url: `${hook.url}/fail/tok-2` },
    });
  });

  it('calls at the interval while healthy, stops while unhealthy after one call of the fail URL with the reason, and resumes at once', async () => {
    await tick();
    expect(beats().map((r) => r.method)).toEqual(['HEAD']);
    const first = await hb();
    expect(first).toMatchObject({ state: 'calling', last_success_at: clock.now().toISOString(), last_error: null });
    const next = new Date(first.next_call_at).getTime() - clock.now().getTime();
    expect(next).toBeGreaterThanOrEqual(54_000); // the interval, up to 10 % sooner
    expect(next).toBeLessThanOrEqual(60_000);
    await advance(30_000);
    await tick();
    expect(beats()).toHaveLength(1);
    await advance(31_000);
    await tick();
    expect(beats()).toHaveLength(2);
    // A monitor that answers an error is recorded, and the calls go on.
    hook.script.push({ status: 500 });
    await advance(61_000);
    await tick();
    expect(await hb()).toMatchObject({ state: 'calling', last_error: 'The heartbeat URL answered HTTP 500' });

    await advance(61_000);
    await h.process.services.operations.tick(clock.now(), unhealthy);
    await advance(61_000);
    await h.process.services.operations.tick(clock.now(), unhealthy);
    expect(beats()).toHaveLength(3);
    expect(fails().map((r) => [r.method, r.body])).toEqual([['POST', 'Herald is unhealthy: redis: Redis does not answer']]);
    expect(await hb()).toMatchObject({ state: 'stopped', next_call_at: null });

    await advance(5_000);
    await tick();
    expect(beats()).toHaveLength(4);
    expect((await hb()).state).toBe('calling');
    // The URLs are secrets: neither the status nor the logs carry them.
    expect(JSON.stringify(await hb())).not.toMatch(/tok-1|tok-2/);
    expect(h.logs.join('')).not.toMatch(/tok-1|tok-2/);
  });

  it('calls at once when the interval is shortened below the wait for the next call', async () => {
    await settings({ channel_ids: [], fallback_channel_id: null, heartbeat: { url: `${hook.url}/beat/tok-1`, method: 'GET', interval_seconds: 600 } });
    await advance(700_000);
    await tick();
    const n = beats().length;
    await advance(60_000);
    await tick();
    expect(beats()).toHaveLength(n); // the next call is some 9 minutes away
    await settings({ channel_ids: [], fallback_channel_id: null, heartbeat: { interval_seconds: 60 } });
    await tick();
    expect(beats()).toHaveLength(n + 1);
  });

  it('stops calling once the heartbeat is turned off', async () => {
    await settings({ channel_ids: [], fallback_channel_id: null, heartbeat: null });
    const before = beats().length;
    await advance(120_000);
    await tick();
    expect(beats()).toHaveLength(before);
    expect((await hb()).state).toBe('off');
  });
});
