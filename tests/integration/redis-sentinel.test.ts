/**
 * SVC_REDIS_URL under Redis Sentinel (a primary, a replica and three sentinels from Debian's
 * redis-server on loopback): Herald's API and worker find the primary through the sentinels; a
 * failover while one run executes and another waits in the queue loses neither and starts
 * neither twice; runs queued after it go to the new primary; readiness is healthy again after it.
 * When the primary dies, readiness says Redis is degraded (200) while the sentinels switch, never
 * unhealthy, and ok after; the event stream, left before the failure, resumes with Last-Event-ID
 * with what happened during and after it, each once and in order.
 */
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { waitForRun } from '../support/runs.js';
import { startSentinelSet, type SentinelSet } from '../support/redis-sentinel.js';
import { openSse, serve, type SseEvent } from '../support/sse.js';

let sentinel: SentinelSet;
let h: Herald;
let admin: SessionClient;
let src: PostgresSource;
let queryOf: (sql: string) => Promise<string>;

beforeAll(async () => {
  sentinel = await startSentinelSet();
  h = await startHerald({ env: { SVC_REDIS_URL: sentinel.url, SVC_ROLES: 'api,worker', SVC_WORKER_CONCURRENCY: '1' } });
  admin = await setupAdmin(h);
  src = await createPostgresSource(async () => undefined);
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  let n = 0;
  queryOf = async (sql) => {
    n += 1;
    const queryId = (await admin.post('/api/v1/queries').send({ name: `Q${n}`, connection_id: connectionId, sql }).expect(201)).body.id as string;
    return (await admin.post('/api/v1/reports').send({ title: `R${n}`, query_id: queryId }).expect(201)).body.id as string;
  };
}, 90_000);
// The servers go whatever happens to Herald's stop (tests/integration/redis-disconnect.test.ts
// proves that stop ends while a client waits to reconnect).
afterAll(async () => {
  try {
    await h?.stop();
  } finally {
    await src?.drop();
    await sentinel?.stop();
  }
}, 120_000);

const run = async (reportId: string): Promise<string> => (await admin.post(`/api/v1/reports/${reportId}/run`).send({}).expect(202)).body.id as string;

it('runs through the primary the sentinels name, and loses no run when it fails over; the event stream goes on', async () => {
  expect(await sentinel.primaryPort()).toBe(sentinel.ports.primary);
  const { token } = await createKey(admin, { name: 'watcher', scope: 'admin' });
  const server = await serve(h.process.app!);
  const stream = await openSse(server.url, token);
  const first = await waitForRun(admin, await run(await queryOf('select 1 as one')));
  expect(first.status).toBe('success');

  // One run executes (3 s on the database) and one waits behind it (one slot) when the primary changes.
  const slow = await run(await queryOf('select pg_sleep(3) is null as slept'));
  const queued = await run(await queryOf('select 2 as two'));
  await waitForRun(admin, slow, (r) => r.status === 'running');
  const now = await sentinel.failover();
  expect(now).toBe(sentinel.ports.replica);

  for (const id of [slow, queued]) {
    const done = await waitForRun(admin, id, undefined, 60_000);
    expect(done).toMatchObject({ status: 'success', attempts: 1 });
  }
  // After the failover, new runs go through the new primary.
  const after = await waitForRun(admin, await run(await queryOf('select 3 as three')), undefined, 30_000);
  expect(after.status).toBe('success');
  // The stream opened before the failover tells of the runs that ended after it, each once.
  const ended = (id: string) => (e: { event: string; data: Record<string, unknown> }) => e.event === 'run.updated' && e.data.id === id && e.data.status === 'success';
  await stream.until((events) => [slow, queued, after.id as string].every((id) => events.some(ended(id))), 30_000);
  for (const id of [slow, queued, after.id as string]) expect(stream.events.filter(ended(id))).toHaveLength(1);
  await stream.close();
  await server.close();

  const ready = await (async () => {
    for (let i = 0; i < 100; i += 1) {
      const res = await h.http.get('/health/ready');
      if (res.status === 200) return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
    return (await h.http.get('/health/ready')).body;
  })();
  expect(ready).toMatchObject({ status: 'ok' });
}, 150_000);

it('readiness says Redis is degraded (ok, marked degraded) while the primary switches (never unhealthy) and ok after; the event stream resumes with Last-Event-ID', async () => {
  const { token } = await createKey(admin, { name: 'resumer', scope: 'admin' });
  const server = await serve(h.process.app!);
  const reportId = await queryOf('select 4 as four');
  const mine = (events: SseEvent[]) => events.filter((e) => (e.event === 'report.updated' && e.data.id === reportId)
    || (e.event === 'run.updated' && e.data.report_id === reportId && ['success', 'failed'].includes(e.data.status as string)));
  const first = await openSse(server.url, token);
  const before = await waitForRun(admin, await run(reportId));
  expect(before.status).toBe('success');
  await first.until((e) => mine(e).some((x) => x.event === 'run.updated' && x.data.id === before.id));
  const lastSeen = first.events.at(-1)!.id!;
  await first.close();

  const killed = await sentinel.killPrimary();
  // While the sentinels notice (1 s) and promote the replica, a change is made (the store only).
  await admin.post(`/api/v1/reports/${reportId}/pause`).expect(200);
  const answers: Array<{ code: number; body: { status: string; degraded?: boolean; components: { redis?: { status: string; degraded?: boolean; detail?: string } } } }> = [];
  // What the redis component says: ok, degraded (ok and marked so) or unhealthy.
  const said = (a: (typeof answers)[number]) => (a.body.components.redis?.degraded ? 'degraded' : a.body.components.redis?.status);
  for (let i = 0; i < 600; i += 1) {
    const res = await h.http.get('/health/ready');
    answers.push({ code: res.status, body: res.body });
    if (said(answers.at(-1)!) === 'ok' && answers.some((a) => said(a) === 'degraded')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const redis = answers.map(said);
  expect(redis).toContain('degraded');
  expect(redis).not.toContain('unhealthy');
  expect(redis.at(-1)).toBe('ok');
  expect(answers.every((a) => a.code === 200)).toBe(true);
  const degraded = answers.find((a) => said(a) === 'degraded')!.body;
  expect(degraded).toMatchObject({ status: 'ok', degraded: true, components: { store: { status: 'ok' }, redis: { status: 'ok', degraded: true, detail: expect.stringMatching(/switching under Sentinel/) } } });
  expect(answers.at(-1)!.body).toMatchObject({ status: 'ok' });
  expect(answers.at(-1)!.body.degraded).toBeUndefined();
  expect(await sentinel.primaryOtherThan(killed)).not.toBe(killed);

  // After the switch: resume and run it; then the stream, resumed from the last event seen before
  // the failure, tells of each change once, in order, and goes on live.
  await admin.post(`/api/v1/reports/${reportId}/resume`).expect(200);
  const after = await waitForRun(admin, await run(reportId), undefined, 30_000);
  expect(after).toMatchObject({ status: 'success', attempts: 1 });
  const resumed = await openSse(server.url, token, lastSeen);
  const changes = (events: SseEvent[]) => mine(events).map((e) => (e.event === 'run.updated' ? `run:${e.data.id as string}` : e.data.change));
  await resumed.until((e) => changes(e).includes(`run:${after.id as string}`), 30_000);
  expect(changes(resumed.events).filter((c) => c !== 'ran')).toEqual(['paused', 'resumed', `run:${after.id as string}`]);
  expect(resumed.events.every((e) => e.id === undefined || e.id > lastSeen)).toBe(true);
  await admin.post(`/api/v1/reports/${reportId}/pause`).expect(200);
  await resumed.until((e) => changes(e).filter((c) => c === 'paused').length === 2);
  await resumed.close();
  await server.close();
  await sentinel.restart(killed);
}, 150_000);

it('with no server left to promote, readiness goes from degraded to unhealthy (503) once the sentinels\' time for a failover has passed', async () => {
  const primary = await sentinel.primaryPort();
  const other = [sentinel.ports.primary, sentinel.ports.replica].find((p) => p !== primary)!;
  await sentinel.kill(other);
  await sentinel.kill(primary);
  const seen: Array<[number, string | undefined]> = [];
  // The operations check (what opens queue.unavailable) runs beside readiness: while the switch
  // may still come, no alert; once readiness says unhealthy, the problem is open.
  const problems: string[][] = [];
  const evaluate = async () => {
    await h.process.services.operations.tick(new Date(), async () => ({ healthy: true, reason: null }));
    const open = (await admin.get('/api/v1/system/problems?state=open').expect(200)).body.items as Array<{ kind: string }>;
    return open.map((p) => p.kind);
  };
  for (let i = 0; i < 600; i += 1) {
    const res = await h.http.get('/health/ready');
    const redis = res.body.components.redis as { status: string; degraded?: boolean } | undefined;
    seen.push([res.status, redis?.degraded ? 'degraded' : redis?.status]);
    if (res.status === 503) break;
    if (i % 10 === 0) problems.push(await evaluate());
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(problems.length).toBeGreaterThan(0);
  expect(problems.flat()).not.toContain('queue.unavailable');
  // Past the window, the operations check's own (it counts from its first failed look).
  let after: string[] = [];
  for (let i = 0; i < 60 && !after.includes('queue.unavailable'); i += 1) {
    after = await evaluate();
    if (!after.includes('queue.unavailable')) await new Promise((r) => setTimeout(r, 500));
  }
  expect(after).toContain('queue.unavailable');
  const statuses = seen.map(([, s]) => s);
  expect(statuses[0]).toBe('degraded');
  expect(seen.at(-1)).toEqual([503, 'unhealthy']);
  // Degraded, then unhealthy: never ok in between, and every degraded answer was a 200.
  const firstUnhealthy = statuses.indexOf('unhealthy');
  expect(statuses.slice(0, firstUnhealthy).every((s) => s === 'degraded')).toBe(true);
  expect(seen.slice(0, firstUnhealthy).every(([code]) => code === 200)).toBe(true);
  const body = (await h.http.get('/health/ready')).body;
  expect(body).toMatchObject({ status: 'unhealthy', components: { redis: { status: 'unhealthy', detail: expect.stringMatching(/does not answer/) } } });

  // Both back (the one the sentinels still name as the primary), so Herald can stop cleanly.
  await sentinel.restart(primary, true);
  await sentinel.restart(other);
  for (let i = 0; i < 600 && (await h.http.get('/health/ready')).status !== 200; i += 1) await new Promise((r) => setTimeout(r, 100));
  expect((await h.http.get('/health/ready')).body).toMatchObject({ status: 'ok' });
  expect(await evaluate()).not.toContain('queue.unavailable');
  // The worker takes runs again (its blocking connection came back too).
  const again = await waitForRun(admin, await run(await queryOf('select 5 as five')), undefined, 60_000);
  expect(again).toMatchObject({ status: 'success', attempts: 1 });
}, 120_000);
