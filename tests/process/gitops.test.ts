/**
 * GitOps with a real `herald scheduler` child process reconciling SVC_GITOPS_DIR (a temp dir, ticks
 * of 1 s) and the API in process on the same store: a file written makes its resources, a change
 * changes them, a removed file prunes what the directory made; a broken file changes nothing and
 * shows in GET /gitops/status (and the scheduler's gitops readiness after three failed ticks); a
 * managed report refuses a PATCH (409 gitops.managed) until it is detached, then the reconciler
 * leaves it and the status reports its drift; attach answers the pending diff and the next
 * reconcile restores the file's version.
 */
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startHerald, type Herald as InProcess } from '../support/harness.js';
import { killChildren, freePorts, startedScheduler, type Herald } from '../support/child-process.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import { until } from '../support/private-redis.js';

let h: InProcess;
let admin: SessionClient;
let src: PostgresSource;
let dir: string;
let scheduler: Herald;
let probePort: number;

const report = (name: string, cron: string, title = `Report ${name}`) => `apiVersion: herald/v1
kind: Report
metadata:
  name: ${name}
spec:
  title: ${title}
  query: gitops-query
  schedule:
    cron: '${cron}'
    timezone: UTC
`;

const QUERY = `apiVersion: herald/v1
kind: Query
metadata:
  name: gitops-query
spec:
  name: Gitops query
  connection: src
  sql: select 1 as one
`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'herald-gitops-'));
  h = await startHerald({ env: { SVC_GITOPS_DIR: dir } }); // the API only: the scheduler is a child process
  admin = await setupAdmin(h);
  src = await createPostgresSource(async () => undefined);
  const connection = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  await admin.post('/api/v1/queries').send({ name: 'Gitops query', key: 'gitops-query', connection_id: connection, sql: 'select 1 as one' }).expect(201);
  [probePort] = await freePorts(1) as [number];
  scheduler = await startedScheduler({ ...h.iso.env, SVC_SCHEDULER_TICK_SECONDS: '1', SVC_GITOPS_DIR: dir, SVC_PROBE_LISTEN: `127.0.0.1:${probePort}` });
}, 90_000);
afterAll(async () => {
  await killChildren();
  await h.stop();
  await src.drop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

const reportsByKey = async (): Promise<Map<string, { id: string; schedule: { cron: string } | null; title: string; version: number }>> => {
  const rows = await h.process.container.sql<Array<{ id: string; key: string; schedule_cron: string | null; title: string; version: number }>>`
    select id, key, schedule_cron, title, version from reports`;
  return new Map(rows.map((r) => [r.key, { id: r.id, schedule: r.schedule_cron ? { cron: r.schedule_cron } : null, title: r.title, version: r.version }]));
};
const status = async () => {
  const res = await admin.get('/api/v1/gitops/status');
  expect(res.status).toBe(200);
  return res.body as {
    enabled: boolean; directory: string; last_reconcile_at: string | null; result: string | null;
    errors: Array<{ path: string | null; field: string | null; line: number | null; message: string }>;
    managed: number; detached: number; drift: Array<{ kind: string; name: string; id: string; diff: Array<{ path: string; before?: unknown; after?: unknown }> }>;
  };
};
const ready = async () => {
  const res = await fetch(`http://127.0.0.1:${probePort}/health/ready`);
  return (await res.json()) as { status: string; components: Record<string, { status: string }> };
};

it('applies a file written to the directory, marks what it defines, and reports it', async () => {
  // The query was made through the API; the directory defines it as it is, so it becomes the directory's.
  await writeFile(path.join(dir, 'query.yml'), QUERY);
  await writeFile(path.join(dir, 'reports.yaml'), `${report('daily', '0 7 * * *')}---\n${report('weekly', '0 7 * * 1')}`);
  await until(async () => (await reportsByKey()).has('weekly'), 'the reports to appear', 30_000, 200);
  const marks = await h.process.container.sql<Array<{ kind: string; managed_by: string; path: string }>>`
    select kind, managed_by, path from config_managed order by kind`;
  expect(marks).toEqual([
    { kind: 'query', managed_by: 'gitops', path: path.join(dir, 'query.yml') },
    { kind: 'report', managed_by: 'gitops', path: path.join(dir, 'reports.yaml') },
    { kind: 'report', managed_by: 'gitops', path: path.join(dir, 'reports.yaml') },
  ]);
  await until(async () => (await status()).managed === 3, 'the status to count them', 10_000, 200);
  expect(await status()).toMatchObject({ enabled: true, directory: dir, errors: [], detached: 0, drift: [] });
  expect(['applied', 'unchanged']).toContain((await status()).result);
  expect((await ready()).components.gitops).toEqual({ status: 'ok' });
}, 60_000);

it('changes the schedule when the file changes', async () => {
  await writeFile(path.join(dir, 'reports.yaml'), `${report('daily', '30 6 * * *')}---\n${report('weekly', '0 7 * * 1')}`);
  await until(async () => (await reportsByKey()).get('daily')?.schedule?.cron === '30 6 * * *', 'the schedule to change', 30_000, 200);
}, 60_000);

it('leaves everything as it is when a file is broken, and tells why in the status and the readiness', async () => {
  const before = await reportsByKey();
  await writeFile(path.join(dir, 'zz-broken.yaml'), `${report('monthly', '0 7 1 * *')}---\napiVersion: herald/v1\nkind: Report\nmetadata:\n  name: bad\nspec:\n  title: Bad\n  query: gitops-query\n  colour: blue\n`);
  await until(async () => (await status()).result === 'failed', 'the failure in the status', 30_000, 200);
  const s = await status();
  expect(s.errors.length).toBeGreaterThan(0);
  expect(s.errors[0]).toMatchObject({ path: path.join(dir, 'zz-broken.yaml') });
  expect(s.errors[0]!.line).toEqual(expect.any(Number));
  expect(s.errors.map((e) => e.field).join('\n')).toMatch(/^documents\.\d+\.spec\.colour$/m);
  // All or nothing: the valid document of the broken file was not applied either.
  expect(await reportsByKey()).toEqual(before);
  await until(async () => (await ready()).components.gitops?.status === 'unhealthy', 'gitops readiness to turn unhealthy', 30_000, 300);
  expect(scheduler.stdout()).toContain('configuration directory not applied');

  await unlink(path.join(dir, 'zz-broken.yaml'));
  await until(async () => (await status()).result !== 'failed', 'the directory to apply again', 30_000, 200);
  expect((await status()).errors).toEqual([]);
  await until(async () => (await ready()).components.gitops?.status === 'ok', 'gitops readiness to recover', 30_000, 300);
}, 60_000);

it('refuses a change of a managed report through the API until it is detached; then leaves it, reports its drift, and attach brings the file back', async () => {
  const daily = (await reportsByKey()).get('daily')!;
  const current = (await admin.get(`/api/v1/reports/${daily.id}`).expect(200)).body as { version: number };
  expect(current).toMatchObject({ managed: { by: 'gitops', path: path.join(dir, 'reports.yaml'), detached: false } });
  // What was made through the API reads back without `managed`.
  const connectionId = (await admin.get('/api/v1/connections').expect(200)).body.items[0].id as string;
  expect((await admin.get(`/api/v1/connections/${connectionId}`).expect(200)).body).not.toHaveProperty('managed');
  // Lists carry it too (one read per page), so a list can show the badge without a request per row.
  const listed = (await admin.get('/api/v1/reports?limit=200').expect(200)).body.items as Array<{ id: string; managed?: unknown }>;
  expect(listed.find((r) => r.id === daily.id)?.managed).toEqual({ by: 'gitops', path: path.join(dir, 'reports.yaml'), detached: false });
  const queriesListed = (await admin.get('/api/v1/queries?limit=200').expect(200)).body.items as Array<{ key: string; managed?: unknown }>;
  expect(queriesListed.find((q) => q.key === 'gitops-query')?.managed).toMatchObject({ by: 'gitops', detached: false });
  const connectionsListed = (await admin.get('/api/v1/connections').expect(200)).body.items as Array<{ id: string; managed?: unknown }>;
  expect(connectionsListed.find((c) => c.id === connectionId)).not.toHaveProperty('managed');
  const refused = await admin.patch(`/api/v1/reports/${daily.id}`).send({ version: current.version, title: 'Changed in the UI' });
  expect([refused.status, refused.body.code]).toEqual([409, 'gitops.managed']);
  expect((await admin.post(`/api/v1/reports/${daily.id}/pause`)).status).toBe(409);
  const query = (await admin.get('/api/v1/queries').expect(200)).body.items[0] as { id: string; version: number };
  const queryRefused = await admin.patch(`/api/v1/queries/${query.id}`).send({ version: query.version, name: 'Renamed' });
  expect([queryRefused.status, queryRefused.body.code]).toEqual([409, 'gitops.managed']);
  // An import that would change it is refused too; one that leaves it as it is goes through.
  const imported = await admin.post('/api/v1/import').send({ yaml: report('daily', '0 5 * * *'), mode: 'apply' });
  expect([imported.status, imported.body.code]).toEqual([409, 'gitops.managed']);
  expect((await admin.post('/api/v1/import').send({ yaml: QUERY, mode: 'apply' })).status).toBe(200);

  // Something the directory does not manage answers gitops.not_managed.
  const other = (await admin.get('/api/v1/connections').expect(200)).body.items[0].id as string;
  const notManaged = await admin.post('/api/v1/gitops/detach').send({ kind: 'connection', id: other });
  expect([notManaged.status, notManaged.body.code]).toEqual([409, 'gitops.not_managed']);

  const detached = await admin.post('/api/v1/gitops/detach').send({ kind: 'report', id: daily.id });
  expect(detached.status).toBe(200);
  expect(detached.body).toMatchObject({ kind: 'report', id: daily.id, name: 'daily', managed: false, detached_by: admin.userId, path: path.join(dir, 'reports.yaml') });
  expect(detached.body.detached_at).toEqual(expect.any(String));
  expect((await admin.get(`/api/v1/reports/${daily.id}`).expect(200)).body.managed).toEqual({ by: 'gitops', path: path.join(dir, 'reports.yaml'), detached: true });

  const changed = await admin.patch(`/api/v1/reports/${daily.id}`).send({ version: current.version, title: 'Changed in the UI', schedule: { cron: '0 9 * * *', timezone: 'UTC' } });
  expect(changed.status).toBe(200);
  await until(async () => (await status()).drift.length === 1, 'the drift in the status', 10_000, 200);
  const s = await status();
  expect(s).toMatchObject({ managed: 2, detached: 1 });
  expect(s.drift[0]).toMatchObject({ kind: 'report', name: 'daily', id: daily.id });
  expect(s.drift[0]!.diff.map((d) => d.path).sort()).toEqual(['spec.schedule', 'spec.title']);

  // Reconciles go on (the file changes: weekly's schedule), and the detached report stays as the UI left it.
  await writeFile(path.join(dir, 'reports.yaml'), `${report('daily', '30 6 * * *')}---\n${report('weekly', '15 7 * * 1')}`);
  await until(async () => (await reportsByKey()).get('weekly')?.schedule?.cron === '15 7 * * 1', 'weekly to change', 30_000, 200);
  expect((await reportsByKey()).get('daily')).toMatchObject({ title: 'Changed in the UI', schedule: { cron: '0 9 * * *' } });

  const attached = await admin.post('/api/v1/gitops/attach').send({ kind: 'report', id: daily.id });
  expect(attached.status).toBe(200);
  expect(attached.body).toMatchObject({ managed: true, detached_at: null, detached_by: null });
  expect(attached.body.pending_changes).toEqual(expect.arrayContaining([
    { path: 'spec.title', before: 'Changed in the UI', after: 'Report daily' },
    { path: 'spec.schedule', before: { cron: '0 9 * * *', timezone: 'UTC' }, after: { cron: '30 6 * * *', timezone: 'UTC' } },
  ]));
  await until(async () => (await reportsByKey()).get('daily')?.title === 'Report daily', 'the file version back', 30_000, 200);
  expect((await reportsByKey()).get('daily')?.schedule?.cron).toBe('30 6 * * *');
  expect((await status()).drift).toEqual([]);

  const events = (await admin.get('/api/v1/security-events').expect(200)).body.items.map((e: { type: string }) => e.type);
  expect(events).toEqual(expect.arrayContaining(['gitops.detached', 'gitops.attached']));
}, 60_000);

it('prunes what the directory manages when its file is removed, and leaves the rest', async () => {
  await unlink(path.join(dir, 'reports.yaml'));
  await until(async () => (await reportsByKey()).size === 0, 'the reports to be pruned', 30_000, 200);
  expect((await admin.get('/api/v1/queries').expect(200)).body.items).toHaveLength(1);
  expect((await admin.get('/api/v1/connections').expect(200)).body.items).toHaveLength(1);
  const marks = await h.process.container.sql`select kind from config_managed`;
  expect(marks).toEqual([{ kind: 'query' }]);
  await until(async () => (await status()).managed === 1, 'the status to count the query', 10_000, 200);
}, 60_000);
