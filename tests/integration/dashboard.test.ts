/**
 * GET /dashboard against a known data set: reports, runs, channels and system problems written to
 * the store with known statuses and times around a manual clock's "now" (the API role only, so
 * nothing else moves them), plus a report made, run and paused through the API. Checked: the
 * counts, the 24-hour window's edges, the latest failures (order and limit 5), the next runs, the
 * queue's depth and oldest wait on the clock, the banner (ok; warning and critical from open
 * system problems, resolved ones left out; critical when a readiness component fails, on an
 * instance whose scheduler stopped ticking), and that a viewer and a read key may read it while
 * nobody signed in may not. Every answer is checked against openapi.yaml by the test client.
 */
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { manualClock } from '../../src/core/clock.js';
import { startHerald, type Herald, type HttpClient } from '../support/harness.js';
import { createKey, createSignedInUser, keyClient, setupAdmin, type SessionClient } from '../support/identity.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const at = (ms: number) => new Date(NOW.getTime() + ms);
const clock = manualClock(NOW);

let h: Herald;
let sql: postgres.Sql;
let admin: SessionClient;
let viewer: SessionClient;
let reader: HttpClient;
let queryId: string;
const reportIds: Record<string, string> = {};
const runIds: Record<string, string> = {};

async function report(title: string, options: { paused?: boolean; nextRunAt?: Date | null } = {}): Promise<string> {
  const id = randomUUID();
  const scheduled = options.nextRunAt !== undefined;
  await sql`insert into reports (id, key, title, query_id, schedule_cron, schedule_timezone, paused, next_run_at)
    values (${id}, ${title.toLowerCase()}, ${title}, ${queryId}, ${scheduled ? '0 * * * *' : null}, ${scheduled ? 'UTC' : null},
            ${options.paused ?? false}, ${options.nextRunAt?.toISOString() ?? null})`;
  reportIds[title] = id;
  return id;
}

/** A run of `title` with its status; finished (ended `ms` from now) unless pending or running. */
async function run(name: string, title: string, status: string, ms: number, errorCode: string | null = null): Promise<string> {
  const id = randomUUID();
  const finished = status === 'pending' || status === 'running' ? null : at(ms).toISOString();
  await sql`insert into runs (id, report_id, trigger, status, created_at, started_at, finished_at, updated_at, error_code, error_message)
    values (${id}, ${reportIds[title]!}, 'schedule', ${status}, ${at(ms - 5_000).toISOString()}, ${status === 'pending' ? null : at(ms - 4_000).toISOString()},
            ${finished}, ${at(ms).toISOString()}, ${errorCode}, ${errorCode ? 'it went wrong' : null})`;
  runIds[name] = id;
  return id;
}

async function lastRun(title: string, runName: string): Promise<void> {
  await sql`update reports set last_run_id = ${runIds[runName]!} where id = ${reportIds[title]!}`;
}

async function problem(kind: string, severity: 'warning' | 'critical', openedMsAgo: number, message: string, resolved = false): Promise<void> {
  await sql`insert into system_problems (id, fingerprint, kind, severity, message, opened_at, last_seen_at, resolved_at)
    values (${randomUUID()}, ${`${kind}:${randomUUID()}`}, ${kind}, ${severity}, ${message}, ${at(-openedMsAgo).toISOString()}, ${NOW.toISOString()},
            ${resolved ? at(-1000).toISOString() : null})`;
}

async function dashboard(client: HttpClient = viewer) {
  const res = await client.get('/api/v1/dashboard');
  expect(res.status).toBe(200);
  return res.body;
}

beforeAll(async () => {
  h = await startHerald({ clock });
  sql = h.process.container.sql;
  admin = await setupAdmin(h);
  viewer = await createSignedInUser(h, admin, { name: 'Vera', email: 'vera@example.com', role: 'viewer' });
  reader = keyClient(h, (await createKey(admin, { name: 'wallboard', scope: 'read' })).token);
  const connection = await admin.post('/api/v1/connections').send({
    name: 'Shop', type: 'postgres', host: '127.0.0.1', port: 5432, database: 'shop', username: 'reader', ssl_mode: 'disable',
  }).expect(201);
  queryId = (await admin.post('/api/v1/queries').send({ name: 'Orders', connection_id: connection.body.id, sql: 'select 1 as one' }).expect(201)).body.id;

  // Reports: seven active (six scheduled, one on demand), two paused (one with a stale next run).
  await report('Alpha', { nextRunAt: at(10 * MIN) });
  await report('Bravo', { nextRunAt: at(5 * MIN) });
  await report('Charlie', { nextRunAt: at(2 * MIN) });
  await report('Delta', { nextRunAt: at(20 * MIN) });
  await report('Echo', { nextRunAt: at(15 * MIN) });
  await report('Foxtrot', { nextRunAt: at(30 * MIN) });
  await report('India');
  await report('Golf', { paused: true, nextRunAt: at(1000) });
  await report('Hotel', { paused: true, nextRunAt: null });

  // Runs finished within the last 24 hours: 3 success, 1 partial, 2 skipped, 2 failed, 1 cancelled.
  await run('a-success', 'Alpha', 'success', -3 * HOUR);
  await run('b-success', 'Bravo', 'success', -1 * HOUR);
  await run('edge-in', 'Echo', 'success', -24 * HOUR + 1000); // one second inside the window
  await run('c-partial', 'Charlie', 'partial', -30 * MIN, 'delivery.partial');
  await run('e-skipped', 'Echo', 'skipped', -2 * HOUR);
  await run('f-skipped', 'Foxtrot', 'skipped', -20 * HOUR);
  await run('a-failed', 'Alpha', 'failed', -10 * MIN, 'query.timeout');
  await run('b-failed', 'Bravo', 'failed', -5 * HOUR, 'query.failed');
  await run('i-cancelled', 'India', 'cancelled', -4 * HOUR);
  // Outside it: exactly 24 hours ago, and earlier failures (which still count among the latest).
  await run('edge-out', 'Echo', 'success', -24 * HOUR);
  await run('d-failed', 'Delta', 'failed', -25 * HOUR, 'run.timeout');
  await run('e-partial', 'Echo', 'partial', -2 * 24 * HOUR, 'delivery.partial');
  await run('f-failed', 'Foxtrot', 'failed', -3 * 24 * HOUR, 'query.failed');
  await run('g-failed', 'Golf', 'failed', -4 * 24 * HOUR, 'query.failed');
  // Waiting and running: two pending (the older queued 90 s ago), one running.
  await run('pending-old', 'Alpha', 'pending', -85_000);
  await run('pending-new', 'Bravo', 'pending', -25_000);
  await run('running', 'Charlie', 'running', -10_000);

  // Last runs: Alpha's and Delta's failed; Bravo failed before but its last run succeeded;
  // Charlie's is partial (not failed); Golf's failed long ago (a paused report counts too).
  await lastRun('Alpha', 'a-failed');
  await lastRun('Bravo', 'b-success');
  await lastRun('Charlie', 'c-partial');
  await lastRun('Delta', 'd-failed');
  await lastRun('Golf', 'g-failed');

  for (const [name, health] of [['Mail', 'healthy'], ['Hook', 'healthy'], ['Slack', 'failing'], ['Bucket', 'unknown']] as const) {
    await sql`insert into channels (id, key, name, type, health) values (${randomUUID()}, ${name.toLowerCase()}, ${name}, 'webhook', ${health})`;
  }
}, 60_000);

afterAll(async () => {
  await h.stop();
});

describe('GET /dashboard', () => {
  it('counts reports, the last 24 hours of runs by status, failing reports, channels and the queue', async () => {
    const d = await dashboard();
    expect(d.reports).toEqual({ active: 7, paused: 2 });
    expect(d.runs_last_24h).toEqual({ success: 3, partial: 1, skipped: 2, failed: 2, cancelled: 1 });
    expect(d.failing_reports).toBe(3);
    expect(d.channels).toEqual({ healthy: 2, failing: 1, unknown: 1 });
    expect(d.queue).toEqual({ pending: 2, oldest_pending_seconds: 90 });
    expect(d.banner).toEqual({ level: 'ok', items: [] });
  });

  it('lists the five latest failed or partial runs, newest first, with their report and error code', async () => {
    const d = await dashboard();
    expect(d.recent_failures).toEqual([
      { run_id: runIds['a-failed'], report_id: reportIds.Alpha, report_title: 'Alpha', status: 'failed', error_code: 'query.timeout', finished_at: at(-10 * MIN).toISOString() },
      { run_id: runIds['c-partial'], report_id: reportIds.Charlie, report_title: 'Charlie', status: 'partial', error_code: 'delivery.partial', finished_at: at(-30 * MIN).toISOString() },
      { run_id: runIds['b-failed'], report_id: reportIds.Bravo, report_title: 'Bravo', status: 'failed', error_code: 'query.failed', finished_at: at(-5 * HOUR).toISOString() },
      { run_id: runIds['d-failed'], report_id: reportIds.Delta, report_title: 'Delta', status: 'failed', error_code: 'run.timeout', finished_at: at(-25 * HOUR).toISOString() },
      { run_id: runIds['e-partial'], report_id: reportIds.Echo, report_title: 'Echo', status: 'partial', error_code: 'delivery.partial', finished_at: at(-48 * HOUR).toISOString() },
    ]);
  });

  it('lists the five soonest next runs of unpaused reports', async () => {
    const d = await dashboard();
    expect(d.next_runs).toEqual([
      { report_id: reportIds.Charlie, title: 'Charlie', next_run_at: at(2 * MIN).toISOString() },
      { report_id: reportIds.Bravo, title: 'Bravo', next_run_at: at(5 * MIN).toISOString() },
      { report_id: reportIds.Alpha, title: 'Alpha', next_run_at: at(10 * MIN).toISOString() },
      { report_id: reportIds.Echo, title: 'Echo', next_run_at: at(15 * MIN).toISOString() },
      { report_id: reportIds.Delta, title: 'Delta', next_run_at: at(20 * MIN).toISOString() },
    ]);
  });

  it('follows what the API does: a report made, run and paused moves the counts, the next runs and the queue', async () => {
    const editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
    const created = await editor.post('/api/v1/reports').send({
      title: 'Minutely', query_id: queryId, schedule: { cron: '* * * * *', timezone: 'UTC' },
    }).expect(201);
    let d = await dashboard();
    expect(d.reports).toEqual({ active: 8, paused: 2 });
    expect(d.next_runs[0]).toEqual({ report_id: created.body.id, title: 'Minutely', next_run_at: created.body.next_run_at });
    expect(new Date(created.body.next_run_at as string).getTime()).toBeLessThanOrEqual(at(MIN).getTime());

    const queued = await editor.post(`/api/v1/reports/${created.body.id}/run`).send({ deliver: false }).expect(202);
    await editor.post(`/api/v1/reports/${created.body.id}/pause`).send({}).expect(200);
    d = await dashboard();
    expect(d.reports).toEqual({ active: 7, paused: 3 });
    expect(d.next_runs.map((n: { title: string }) => n.title)).toEqual(['Charlie', 'Bravo', 'Alpha', 'Echo', 'Delta']);
    expect(d.queue).toEqual({ pending: 3, oldest_pending_seconds: 90 });

    // Cancelled while it waits: it leaves the queue and counts among the runs of the last 24 hours.
    await editor.post(`/api/v1/runs/${queued.body.id as string}/cancel`).send({}).expect(200);
    d = await dashboard();
    expect(d.queue).toEqual({ pending: 2, oldest_pending_seconds: 90 });
    expect(d.runs_last_24h).toEqual({ success: 3, partial: 1, skipped: 2, failed: 2, cancelled: 2 });
    // The oldest wait grows with the clock (moved last, as the window moves with it).
    clock.advance(30_000);
    d = await dashboard();
    expect(d.queue).toEqual({ pending: 2, oldest_pending_seconds: 120 });
  });

  it('shows open system problems in the banner: warning, then critical first, resolved ones left out', async () => {
    await problem('channel.failing', 'warning', 2 * HOUR, 'Channel "Slack" is failing.');
    await problem('queue.backlog', 'warning', 30 * MIN, 'Runs wait longer than 10 minutes.', true);
    let d = await dashboard();
    expect(d.banner).toEqual({
      level: 'warning',
      items: [{ code: 'channel.failing', severity: 'warning', message: 'Channel "Slack" is failing.', since: at(-2 * HOUR).toISOString() }],
    });

    await problem('scheduler.stalled', 'critical', 5 * MIN, 'No scheduler has ticked for 5 minutes.');
    await problem('heartbeat.failing', 'warning', 3 * HOUR, 'The heartbeat could not be sent.');
    d = await dashboard();
    expect(d.banner.level).toBe('critical');
    expect(d.banner.items).toEqual([
      { code: 'scheduler.stalled', severity: 'critical', message: 'No scheduler has ticked for 5 minutes.', since: at(-5 * MIN).toISOString() },
      { code: 'heartbeat.failing', severity: 'warning', message: 'The heartbeat could not be sent.', since: at(-3 * HOUR).toISOString() },
      { code: 'channel.failing', severity: 'warning', message: 'Channel "Slack" is failing.', since: at(-2 * HOUR).toISOString() },
    ]);
    // The same for a read key; and for an admin, who sees nothing more.
    expect((await dashboard(reader)).banner).toEqual(d.banner);
    expect(await dashboard(admin)).toEqual(await dashboard(viewer));
    await sql`update system_problems set resolved_at = ${NOW.toISOString()} where resolved_at is null`;
    expect((await dashboard()).banner).toEqual({ level: 'ok', items: [] });
  });

  it('is for signed-in members only', async () => {
    const res = await h.http.get('/api/v1/dashboard');
    expect([res.status, res.body.code]).toEqual([401, 'auth.unauthenticated']);
  });
});

describe('GET /dashboard on an instance whose readiness fails', () => {
  it('is critical with a readiness.scheduler item once the scheduler stops ticking', async () => {
    const own = manualClock(NOW);
    const s = await startHerald({ clock: own, env: { SVC_ROLES: 'api,scheduler', SVC_SCHEDULER_TICK_SECONDS: '10' } });
    try {
      const member = await setupAdmin(s);
      const before = await member.get('/api/v1/dashboard').expect(200);
      expect(before.body.banner).toEqual({ level: 'ok', items: [] });

      // Stalled: no tick completes while the clock moves past three tick intervals.
      await s.process.scheduler!.stop();
      own.advance(31_000);
      const ready = await s.http.get('/health/ready');
      expect([ready.status, ready.body.components.scheduler.status]).toEqual([503, 'unhealthy']);
      const res = await member.get('/api/v1/dashboard').expect(200);
      expect(res.body.banner).toEqual({
        level: 'critical',
        items: [{ code: 'readiness.scheduler', severity: 'critical', message: expect.any(String), since: null }],
      });
      expect(res.body.banner.items[0].message).not.toMatch(/tick intervals|herald|postgres|redis:\/\//i);
      expect(res.body.reports).toEqual({ active: 0, paused: 0 });
    } finally {
      await s.stop();
    }
  });
});
