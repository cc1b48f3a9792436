/**
 * The scheduler's tick on a real store and Redis, with a manual clock: due reports become pending
 * runs with BullMQ jobs (job id = run id), slots are exact across DST changes in Europe/Berlin
 * (the tick keeps going through them), downtime makes one run for the latest missed slot, paused
 * and future reports are left alone, two schedulers racing never make a slot twice, and the sweep
 * re-enqueues or ends runs whose job went missing.
 */
import { Queue } from 'bullmq';
import postgres from 'postgres';
import { manualClock } from '../../src/core/clock.js';
import { newId } from '../../src/core/ids.js';
import { createRedis } from '../../src/infra/queue/queues.js';
import { createScheduling } from '../../src/domain/runs/scheduling.js';
import { createSchedulingRepo } from '../../src/infra/db/stores/scheduling-repo.js';
import { endLostRun } from '../../src/domain/runs/lost-runs.js';
import { createRunJobs } from '../../src/infra/queue/run-jobs.js';
import { runJobSpec } from '../../src/jobs/run-report-spec.js';
import { buildJobCatalog } from '../../src/main/worker-jobs.js';
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, createSignedInUser, keyClient, setupAdmin } from '../support/identity.js';
import type { HttpClient } from '../support/harness.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

const clock = manualClock(new Date('2026-03-28T12:00:00.000Z'));
let h: Herald;
/** An API key: sessions end as the clock jumps by days; keys do not. */
let editor: HttpClient;
let src: PostgresSource;
let queryId: string;
let store: postgres.Sql;
let queue: Queue;
let queueConnection: ReturnType<typeof createRedis>;

beforeAll(async () => {
  h = await startHerald({ clock, env: { SVC_ROLES: 'api,scheduler', SVC_SCHEDULER_TICK_SECONDS: '1' } });
  const admin = await setupAdmin(h);
  const edna = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  editor = keyClient(h, (await createKey(admin, { name: 'edna', scope: 'write', owner_id: edna.userId })).token);
  src = await createPostgresSource(async () => undefined);
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  queryId = (await editor.post('/api/v1/queries').send({ name: 'Q', connection_id: connectionId, sql: 'select 1 as one' }).expect(201)).body.id;
  store = postgres(h.iso.databaseUrl, { max: 4, onnotice: () => undefined });
  queueConnection = createRedis(h.iso.redisUrl, 'worker');
  queue = new Queue('runs', { connection: queueConnection, prefix: h.iso.queuePrefix });
}, 30_000);
afterAll(async () => {
  await queue.close();
  queueConnection.disconnect();
  await store.end();
  await h.stop();
  await src.drop();
});

/** Moves the clock and waits for a tick of each scheduler (default: this file's) that saw the new time. */
async function moveTo(at: string, schedulers: Herald[] = [h]): Promise<void> {
  clock.set(new Date(at));
  const deadline = Date.now() + 15_000;
  while (schedulers.some((s) => (s.process.scheduler!.lastTickAt()?.getTime() ?? 0) < clock.now().getTime())) {
    if (Date.now() > deadline) throw new Error(`no tick at ${at}: ${h.logs.filter((l) => l.includes("scheduler task failed")).slice(-1).join("")}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function createReport(title: string, cron: string, timezone = 'Europe/Berlin', extra: Record<string, unknown> = {}): Promise<string> {
  const res = await editor.post('/api/v1/reports').send({ title, query_id: queryId, schedule: { cron, timezone }, ...extra });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function slotsOf(reportId: string): Promise<string[]> {
  const rows = await store`select slot from runs where report_id = ${reportId} and trigger = 'schedule' order by slot`;
  return rows.map((r) => (r.slot as Date).toISOString());
}

describe('across DST changes in Europe/Berlin', () => {
  it('runs a daily 02:30 once at 03:00 on the spring-forward day, and the ticks go on', async () => {
    const id = await createReport('daily 02:30 (spring)', '30 2 * * *');
    for (const at of ['2026-03-28T18:00:00.000Z', '2026-03-29T00:59:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-29T06:00:00.000Z',
      '2026-03-29T18:00:00.000Z', '2026-03-30T00:30:00.000Z', '2026-03-30T06:00:00.000Z']) await moveTo(at);
    expect(await slotsOf(id)).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    const runs = await store`select id from runs where report_id = ${id}`;
    for (const r of runs) expect((await queue.getJob(r.id as string))?.data).toEqual({ runId: r.id, reportId: id });
    const report = (await editor.get(`/api/v1/reports/${id}`)).body;
    expect(report).toMatchObject({ next_run_at: '2026-03-31T00:30:00.000Z', last_run: { status: 'pending', trigger: 'schedule' } });
  }, 60_000);

  it('runs every half hour through the fall-back night once per wall-clock time, at its first occurrence', async () => {
    await moveTo('2026-10-24T23:40:00.000Z');
    const id = await createReport('half-hourly (fall)', '*/30 * * * *');
    const daily = await createReport('daily 02:30 (fall)', '30 2 * * *');
    for (let t = Date.parse('2026-10-24T23:50:00.000Z'); t <= Date.parse('2026-10-25T02:40:00.000Z'); t += 10 * 60_000) {
      await moveTo(new Date(t).toISOString());
    }
    // 01:00, 01:30, 02:00, 02:30 CEST (= 23:00Z … 00:30Z), then the repeated 02:00 and 02:30 CET are
    // skipped, then 03:00 and 03:30 CET.
    expect(await slotsOf(id)).toEqual([
      '2026-10-25T00:00:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-25T02:00:00.000Z', '2026-10-25T02:30:00.000Z',
    ]);
    expect(await slotsOf(daily)).toEqual(['2026-10-25T00:30:00.000Z']);
  }, 90_000);
});

describe('what a tick claims', () => {
  it('makes one run for the latest missed minute after downtime, and none for paused or future reports', async () => {
    await moveTo('2026-11-02T08:00:30.000Z');
    const minutely = await createReport('every minute', '* * * * *', 'UTC');
    const paused = await createReport('paused', '* * * * *', 'UTC', { paused: true });
    const yearly = await createReport('yearly', '0 0 1 1 *', 'UTC');
    await moveTo('2026-11-02T11:17:10.000Z'); // three hours of "downtime"
    expect(await slotsOf(minutely)).toEqual(['2026-11-02T11:17:00.000Z']);
    expect(await slotsOf(paused)).toEqual([]);
    expect(await slotsOf(yearly)).toEqual([]);
    expect((await editor.get(`/api/v1/reports/${minutely}`)).body.next_run_at).toBe('2026-11-02T11:18:00.000Z');
    const metrics = (await h.http.get('/metrics')).text;
    expect(metrics).toMatch(/^svc_scheduler_lag_seconds \d/m);
    const ready = await h.http.get('/health/ready');
    expect(ready.body.components.scheduler).toEqual({ status: 'ok' });
  }, 30_000);

  it('never makes a slot twice with two schedulers racing over 300 due reports', async () => {
    await moveTo('2026-11-03T09:00:30.000Z');
    const second = await startHerald({ iso: h.iso, clock, env: { SVC_ROLES: 'api,scheduler', SVC_SCHEDULER_TICK_SECONDS: '1' } });
    try {
      const ids = Array.from({ length: 300 }, () => newId());
      await store`insert into reports ${store(ids.map((id, i) => ({
        id, key: `race-${i}`, title: `race ${i}`, query_id: queryId, schedule_cron: '*/5 * * * *', schedule_timezone: 'UTC',
        next_run_at: new Date('2026-11-03T09:05:00.000Z'), parameters: {},
      })))}`;
      clock.set(new Date('2026-11-03T09:05:20.000Z'));
      const deadline = Date.now() + 20_000;
      for (;;) {
        const [row] = await store`select count(*)::int as n from runs r join reports p on p.id = r.report_id where p.title like 'race %'`;
        if (row!.n === 300 || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      // Let both tick twice more, within the same slot: nothing more may appear.
      await moveTo('2026-11-03T09:05:21.000Z', [h, second]);
      await moveTo('2026-11-03T09:05:22.000Z', [h, second]);
      const runs = await store`select r.id, r.report_id, r.slot from runs r join reports p on p.id = r.report_id where p.title like 'race %'`;
      expect(runs).toHaveLength(300);
      expect(new Set(runs.map((r) => r.report_id)).size).toBe(300);
      expect(new Set(runs.map((r) => (r.slot as Date).toISOString()))).toEqual(new Set(['2026-11-03T09:05:00.000Z']));
      const jobs = await Promise.all(runs.map((r) => queue.getJob(r.id as string)));
      expect(jobs.filter((j) => j?.data?.runId !== undefined)).toHaveLength(300);
      const logs = [...h.logs, ...second.logs].map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.message === 'due reports queued');
      // Both schedulers took part only if the work was split; either way the sum is exact.
      expect(logs.reduce((sum, l) => sum + Number(l.runs), 0)).toBeGreaterThanOrEqual(300);
    } finally {
      await second.stop();
    }
  }, 60_000);
});

describe('the sweep', () => {
  it('queues again a pending run whose job is missing and a running run whose worker and job are gone, ends one lost too often, and leaves a live worker\'s run alone', async () => {
    const c = h.process.container;
    const scheduling = createScheduling({
      uow: c.uow, store: { ...createSchedulingRepo(c.db), markLost: (runId, error, now, leaseMs) => endLostRun(c.uow, runId, error, now, leaseMs) },
      jobs: createRunJobs(queue, runJobSpec), log: c.logger, lag: () => undefined, leaseMs: 10_000,
    });
    const reportId = await createReport('sweep', '0 0 1 1 *', 'UTC');
    const pending = newId();
    const orphan = newId();
    const spent = newId();
    const alive = newId();
    const fresh = newId();
    const old = new Date(clock.now().getTime() - 5 * 60_000);
    await store`insert into runs (id, report_id, trigger, status, attempts, heartbeat_at, created_at, updated_at) values
      (${pending}, ${reportId}, 'manual', 'pending', 0, null, ${old}, ${old}),
      (${orphan}, ${reportId}, 'manual', 'running', 1, now() - interval '1 minute', ${old}, ${old}),
      (${spent}, ${reportId}, 'manual', 'running', 3, now() - interval '1 minute', ${old}, ${old}),
      (${alive}, ${reportId}, 'manual', 'running', 1, now(), ${old}, ${old}),
      (${fresh}, ${reportId}, 'manual', 'pending', 0, null, ${clock.now()}, ${clock.now()})`;
    const swept = await scheduling.sweep(clock.now());
    expect(swept).toEqual({ requeued: 2, lost: 1 });
    expect((await queue.getJob(pending))?.data).toEqual({ runId: pending, reportId });
    expect((await queue.getJob(orphan))?.data).toEqual({ runId: orphan, reportId }); // another worker takes it (attempt 2)
    expect(await queue.getJob(fresh)).toBeUndefined(); // too young: its enqueue may still come
    expect(await queue.getJob(alive)).toBeUndefined(); // its worker renews its lease: no job needed, it finishes
    const lost = (await editor.get(`/api/v1/runs/${spent}`)).body;
    expect(lost).toMatchObject({ status: 'failed', error: { code: 'run.worker_lost' } });
    expect((await editor.get(`/api/v1/runs/${alive}`)).body).toMatchObject({ status: 'running' });
    for (const id of [pending, orphan]) await queue.remove(id);
    await store`update runs set status = 'cancelled', finished_at = now() where id in (${pending}, ${orphan}, ${alive})`;
    expect(await scheduling.sweep(clock.now())).toEqual({ requeued: 0, lost: 0 });
  });

  it('ends a lost run the same way from the sweep and from its job\'s final failure, and leaves a delivering run to its attempts\' jobs', async () => {
    const c = h.process.container;
    const scheduling = createScheduling({
      uow: c.uow, store: { ...createSchedulingRepo(c.db), markLost: (runId, error, now, leaseMs) => endLostRun(c.uow, runId, error, now, leaseMs) },
      jobs: createRunJobs(queue, runJobSpec), log: c.logger, lag: () => undefined, leaseMs: 10_000,
    });
    const runJob = buildJobCatalog(c, h.process.services).get(runJobSpec.name)!;
    const reportId = await createReport('lost runs', '0 0 1 1 *', 'UTC');
    const bySweep = newId();
    const byJob = newId();
    const delivering = newId();
    const old = new Date(clock.now().getTime() - 5 * 60_000);
    // Each lost in its query step. The sweep's run has lost its lease and its job; the other's
    // lease is still fresh (the sweep leaves it) when its job fails for good. The third ran its
    // query and handed its deliveries to their jobs: no worker renews its lease, none needs to.
    await store`insert into runs (id, report_id, trigger, status, attempts, heartbeat_at, created_at, updated_at, delivering_since) values
      (${bySweep}, ${reportId}, 'manual', 'running', 3, now() - interval '1 minute', ${old}, ${old}, null),
      (${byJob}, ${reportId}, 'manual', 'running', 3, now(), ${old}, ${old}, null),
      (${delivering}, ${reportId}, 'manual', 'running', 1, now() - interval '5 minutes', ${old}, ${old}, ${old})`;
    expect(await scheduling.sweep(clock.now())).toEqual({ requeued: 0, lost: 1 });
    await runJob.onFinalFailure!({ runId: byJob, reportId }, new Error('the store went away on every attempt'));
    // Its run job failing for good does not end a delivering run either (its attempts do).
    await runJob.onFinalFailure!({ runId: delivering, reportId }, new Error('the store went away on every attempt'));

    for (const runId of [bySweep, byJob]) {
      const run = (await editor.get(`/api/v1/runs/${runId}`)).body;
      expect(run).toMatchObject({ status: 'failed', error: { code: expect.stringMatching(/^run\.(worker_lost|internal_error)$/) } });
    }
    expect((await editor.get(`/api/v1/runs/${delivering}`)).body.status).toBe('running');
  });
});
