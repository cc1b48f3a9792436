/**
 * Reports through the API: create with and without a schedule (next_run_at exact under a manual
 * clock), every 422 path, the list by title with filters and pages, PATCH with versions and a
 * schedule change taking effect from now, pause and resume without a burst of missed runs,
 * delete removing runs and result files, query.in_use, access by role, and report.updated events.
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import { until } from '../support/wait.js';
import { preparing } from '../../src/infra/db/client.js';
import * as schema from '../../src/infra/db/schema.js';
import { createReportsRepo } from '../../src/infra/db/stores/reports-repo.js';
import { manualClock } from '../../src/core/clock.js';
import { createLocalArtifactStore } from '../../src/infra/artifacts/local-store.js';
import type { BusEvent } from '../../src/infra/events/event-bus.js';
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, createSignedInUser, keyClient, setupAdmin, type SessionClient } from '../support/identity.js';
import type { HttpClient } from '../support/harness.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

// Monday 2 March 2026, 07:00 in Berlin (UTC+1 until 29 March).
const NOW = new Date('2026-03-02T06:00:00.000Z');
const clock = manualClock(NOW);
const WEEKDAYS_8_BERLIN = { cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' };

let h: Herald;
let admin: SessionClient;
let editor: HttpClient;
let editorId: string;
let viewer: SessionClient;
let src: PostgresSource;
let queryId: string;
const events: BusEvent[] = [];
let unsubscribe: () => Promise<void>;

beforeAll(async () => {
  h = await startHerald({ clock });
  unsubscribe = await h.process.container.events.subscribe((e) => { events.push(e); });
  admin = await setupAdmin(h);
  const edna = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  editorId = edna.userId;
  // A key does not expire when the manual clock moves days ahead (a session would go idle).
  editor = keyClient(h, (await createKey(admin, { name: 'edna', scope: 'write', owner_id: edna.userId })).token);
  viewer = await createSignedInUser(h, admin, { name: 'Vic', email: 'vic@example.com', role: 'viewer' });
  src = await createPostgresSource(async (sql) => {
    await sql`create table sales (id int primary key, region text not null, total numeric, sold_on date)`;
  });
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Shop')).expect(201)).body.id as string;
  // Version 1 declares region (required), min (default 0) and flag; version 2 adds top (required, no default).
  const created = await editor.post('/api/v1/queries').send({
    name: 'Sales', connection_id: connectionId,
    sql: 'select * from sales where region = {{ region }} and total > {{ min }} and {{ flag }}',
    parameters: [
      { name: 'region', type: 'string', required: true },
      { name: 'min', type: 'number', default: 0 },
      { name: 'flag', type: 'boolean', default: true },
    ],
  }).expect(201);
  queryId = created.body.id;
  await editor.patch(`/api/v1/queries/${queryId}`).send({
    version: 1,
    sql: 'select * from sales where region = {{ region }} and total > {{ min }} and {{ flag }} limit {{ top }}',
    parameters: [
      { name: 'region', type: 'string', required: true },
      { name: 'min', type: 'number', default: 0 },
      { name: 'flag', type: 'boolean', default: true },
      { name: 'top', type: 'integer', required: true },
    ],
  }).expect(200);
});

afterAll(async () => {
  await unsubscribe();
  await h.stop();
  await src.drop();
});

const report = (extra: Record<string, unknown> = {}) => ({
  title: 'Daily sales', query_id: queryId, parameters: { region: 'EU', top: 10 }, ...extra,
});

async function waitFor<T>(find: () => T | undefined, what: string, deadlineMs = 10_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('create', () => {
  it('with a schedule: next_run_at is the schedule\'s first time after now, described with its zone', async () => {
    const res = await editor.post('/api/v1/reports').send(report({
      description: 'EU sales', schedule: WEEKDAYS_8_BERLIN, condition: { type: 'row_count', op: 'gt', value: 0 },
    }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Daily sales', description: 'EU sales', query_id: queryId, query_version: null,
      parameters: { region: 'EU', top: 10 }, // as given: no defaults copied in
      schedule: WEEKDAYS_8_BERLIN, schedule_description: 'At 08:00, Monday through Friday (Europe/Berlin)',
      condition: { type: 'row_count', op: 'gt', value: 0 }, paused: false,
      next_run_at: '2026-03-02T07:00:00.000Z', last_run: null, owner_id: editorId, version: 1,
      created_at: NOW.toISOString(),
    });
    const got = await viewer.get(`/api/v1/reports/${res.body.id}`).expect(200);
    expect(got.body).toEqual(res.body);
  });

  it('without a schedule: runs on demand only, next_run_at null', async () => {
    const res = await editor.post('/api/v1/reports').send(report({ title: 'On demand' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ schedule: null, schedule_description: null, next_run_at: null, condition: null, paused: false });
  });

  it('paused from the start: next_run_at null', async () => {
    const res = await editor.post('/api/v1/reports').send(report({ title: 'Paused', schedule: WEEKDAYS_8_BERLIN, paused: true }));
    expect(res.body).toMatchObject({ paused: true, next_run_at: null });
  });

  it('pinned to version 1: checked against that version\'s parameters; values stored coerced', async () => {
    const res = await editor.post('/api/v1/reports').send({
      title: 'Pinned', query_id: queryId, query_version: 1, parameters: { region: 'US', flag: 'false' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ query_version: 1, parameters: { region: 'US', flag: false } });
  });

  it('publishes report.updated (created) on the event bus', async () => {
    const res = await editor.post('/api/v1/reports').send(report({ title: 'Evented', schedule: WEEKDAYS_8_BERLIN }));
    const event = await waitFor(() => events.find((e) => e.type === 'report.updated' && e.data.id === res.body.id), 'report.updated');
    expect(event.data).toEqual({ id: res.body.id, change: 'created', next_run_at: '2026-03-02T07:00:00.000Z' });
  });
});

describe('create refuses, each on its field (422)', () => {
  const refuses = async (body: Record<string, unknown>, errors: Array<{ field: string; code: string }>) => {
    const res = await editor.post('/api/v1/reports').send(body);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation.failed');
    expect(res.body.errors).toEqual(errors.map((e) => expect.objectContaining(e)));
  };

  it('a cron that is not one, and a time zone that does not exist', async () => {
    await refuses(report({ schedule: { cron: 'every day', timezone: 'Europe/Berlin' } }), [{ field: 'schedule.cron', code: 'validation.invalid' }]);
    await refuses(report({ schedule: { cron: '0 0 30 2 *', timezone: 'Europe/Berlin' } }), [{ field: 'schedule.cron', code: 'validation.invalid' }]);
    await refuses(report({ schedule: { cron: '0 8 * * *', timezone: 'Mars/Olympus' } }), [{ field: 'schedule.timezone', code: 'validation.invalid' }]);
  });

  it('parameters: an unknown name, a wrong type, a required one without value', async () => {
    await refuses(report({ parameters: { region: 'EU', top: 1, colour: 'red' } }), [{ field: 'parameters.colour', code: 'validation.unknown_field' }]);
    await refuses(report({ parameters: { region: 'EU', top: 1, min: 'lots' } }), [{ field: 'parameters.min', code: 'validation.type' }]);
    await refuses(report({ parameters: { region: 'EU', top: 1.5 } }), [{ field: 'parameters.top', code: 'validation.type' }]);
    await refuses(report({ parameters: { region: 'EU' } }), [{ field: 'parameters.top', code: 'validation.required' }]);
    await refuses(report({ parameters: { top: 3, region: null } }), [{ field: 'parameters.region', code: 'validation.required' }]);
    // Pinned to version 1, top is not a parameter.
    await refuses(report({ query_version: 1 }), [{ field: 'parameters.top', code: 'validation.unknown_field' }]);
  });

  it('conditions of the wrong shape', async () => {
    await refuses(report({ condition: { type: 'row_count' } }), [
      { field: 'condition.op', code: 'validation.required' }, { field: 'condition.value', code: 'validation.required' },
    ]);
    await refuses(report({ condition: { type: 'row_count', op: 'contains', value: 3 } }), [{ field: 'condition.op', code: 'validation.enum' }]);
    await refuses(report({ condition: { type: 'rows_exist', op: 'eq' } }), [{ field: 'condition.op', code: 'validation.unknown_field' }]);
    await refuses(report({ condition: { type: 'value', op: 'lt', column: 'total' } }), [{ field: 'condition.value', code: 'validation.required' }]);
    await refuses(report({ condition: { type: 'value', op: 'is_null' } }), [{ field: 'condition.column', code: 'validation.required' }]);
  });

  it('an unknown query, and an unknown pinned version', async () => {
    await refuses(report({ query_id: randomUUID() }), [{ field: 'query_id', code: 'validation.invalid' }]);
    await refuses(report({ query_version: 9 }), [{ field: 'query_version', code: 'validation.invalid' }]);
  });
});

describe('list', () => {
  let listQueryId: string;
  const titles = ['banana', 'Apple', 'cherry', 'apple pie', 'Banana split'];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const q = await editor.post('/api/v1/queries').send({ name: 'Fruit', connection_id: (await admin.get('/api/v1/connections')).body.items[0].id, sql: 'select 1' }).expect(201);
    listQueryId = q.body.id;
    for (const title of titles) {
      ids[title] = (await editor.post('/api/v1/reports').send({ title, query_id: listQueryId, paused: title.startsWith('b'), schedule: WEEKDAYS_8_BERLIN }).expect(201)).body.id;
    }
  });

  it('orders by title as people read it (case folded), in pages', async () => {
    const first = await viewer.get(`/api/v1/reports?query_id=${listQueryId}&limit=2`).expect(200);
    expect(first.body.items.map((r: { title: string }) => r.title)).toEqual(['Apple', 'apple pie']);
    const second = await viewer.get(`/api/v1/reports?query_id=${listQueryId}&limit=2&cursor=${first.body.next_cursor}`).expect(200);
    expect(second.body.items.map((r: { title: string }) => r.title)).toEqual(['banana', 'Banana split']);
    const third = await viewer.get(`/api/v1/reports?query_id=${listQueryId}&limit=2&cursor=${second.body.next_cursor}`).expect(200);
    expect(third.body.items.map((r: { title: string }) => r.title)).toEqual(['cherry']);
    expect(third.body.next_cursor).toBeUndefined();
  });

  it('filters by paused', async () => {
    const paused = await viewer.get(`/api/v1/reports?query_id=${listQueryId}&paused=true`).expect(200);
    expect(paused.body.items.map((r: { title: string }) => r.title)).toEqual(['banana']);
    const scheduled = await viewer.get(`/api/v1/reports?query_id=${listQueryId}&paused=false`).expect(200);
    expect(scheduled.body.items.map((r: { title: string }) => r.title)).toEqual(['Apple', 'apple pie', 'Banana split', 'cherry']);
  });

  it('lists every report without filters, and refuses a forged cursor (422 on cursor)', async () => {
    const all = await viewer.get('/api/v1/reports?limit=200').expect(200);
    expect(all.body.items.length).toBeGreaterThanOrEqual(titles.length + 5);
    const forged = Buffer.from(JSON.stringify(['apple', 'x'])).toString('base64url');
    const res = await viewer.get(`/api/v1/reports?cursor=${forged}`);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'cursor', code: 'validation.invalid' })]);
  });

  it('shows the last run', async () => {
    const runId = randomUUID();
    const sql = h.process.container.sql;
    await sql`insert into runs (id, report_id, trigger, status, created_at, finished_at) values (${runId}, ${ids.cherry!}, 'manual', 'success', ${NOW.toISOString()}::timestamptz, ${NOW.toISOString()}::timestamptz)`;
    await sql`update reports set last_run_id = ${runId} where id = ${ids.cherry!}`;
    const res = await viewer.get(`/api/v1/reports?query_id=${listQueryId}&limit=200`).expect(200);
    const cherry = res.body.items.find((r: { id: string }) => r.id === ids.cherry);
    expect(cherry.last_run).toEqual({ id: runId, status: 'success', trigger: 'manual', created_at: NOW.toISOString(), finished_at: NOW.toISOString() });
  });
});

describe('update', () => {
  let id: string;
  beforeAll(async () => {
    id = (await editor.post('/api/v1/reports').send(report({ title: 'To change', schedule: WEEKDAYS_8_BERLIN })).expect(201)).body.id;
  });

  it('needs the current version: a stale one is 409 conflict.version', async () => {
    const renamed = await editor.patch(`/api/v1/reports/${id}`).send({ version: 1, title: '  Changed ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ title: 'Changed', version: 2, next_run_at: '2026-03-02T07:00:00.000Z' });
    const stale = await editor.patch(`/api/v1/reports/${id}`).send({ version: 1, title: 'Late' });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('conflict.version');
    await editor.patch(`/api/v1/reports/${randomUUID()}`).send({ version: 1, title: 'x' }).expect(404);
  });

  it('a changed schedule takes effect from now; null runs on demand only', async () => {
    clock.set(new Date('2026-03-02T09:45:00.000Z'));
    const changed = await editor.patch(`/api/v1/reports/${id}`).send({ version: 2, schedule: { cron: '*/30 * * * *', timezone: 'UTC' } });
    expect(changed.body).toMatchObject({ version: 3, next_run_at: '2026-03-02T10:00:00.000Z', schedule_description: 'Every 30 minutes (UTC)' });
    const none = await editor.patch(`/api/v1/reports/${id}`).send({ version: 3, schedule: null });
    expect(none.body).toMatchObject({ version: 4, schedule: null, next_run_at: null });
    const bad = await editor.patch(`/api/v1/reports/${id}`).send({ version: 4, schedule: { cron: '0 8 * * *', timezone: 'Berlin' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'schedule.timezone' })]);
    clock.set(NOW);
  });

  it('checks parameters again when they, the query or the pinned version change', async () => {
    const wrong = await editor.patch(`/api/v1/reports/${id}`).send({ version: 4, parameters: { region: 5, top: 1 } });
    expect(wrong.body.errors).toEqual([expect.objectContaining({ field: 'parameters.region', code: 'validation.type' })]);
    // Pinning version 1 keeps the stored values, which name top: not a parameter of version 1.
    const pin = await editor.patch(`/api/v1/reports/${id}`).send({ version: 4, query_version: 1 });
    expect(pin.body.errors).toEqual([expect.objectContaining({ field: 'parameters.top', code: 'validation.unknown_field' })]);
    const pinned = await editor.patch(`/api/v1/reports/${id}`).send({ version: 4, query_version: 1, parameters: { region: 'US', min: 5 } });
    expect(pinned.status).toBe(200);
    expect(pinned.body).toMatchObject({ version: 5, query_version: 1, parameters: { region: 'US', min: 5 } });
    const unpin = await editor.patch(`/api/v1/reports/${id}`).send({ version: 5, query_version: null });
    expect(unpin.body.errors).toEqual([expect.objectContaining({ field: 'parameters.top', code: 'validation.required' })]);
    const none = await editor.patch(`/api/v1/reports/${id}`).send({ version: 5, query_version: 7 });
    expect(none.body.errors).toEqual([expect.objectContaining({ field: 'query_version', code: 'validation.invalid' })]);
    const cond = await editor.patch(`/api/v1/reports/${id}`).send({ version: 5, condition: { type: 'changed', column: 'x' } });
    expect(cond.body.errors).toEqual([expect.objectContaining({ field: 'condition.column', code: 'validation.unknown_field' })]);
    const changedCond = await editor.patch(`/api/v1/reports/${id}`).send({ version: 5, condition: { type: 'changed' } });
    expect(changedCond.body).toMatchObject({ version: 6, condition: { type: 'changed' } });
  });
});

describe('pause and resume', () => {
  it('pause clears next_run_at; resume schedules from now, not the times missed while paused', async () => {
    clock.set(NOW);
    const created = (await editor.post('/api/v1/reports').send(report({ title: 'Pausable', schedule: WEEKDAYS_8_BERLIN })).expect(201)).body;
    const paused = await editor.post(`/api/v1/reports/${created.id}/pause`).expect(200);
    expect(paused.body).toMatchObject({ paused: true, next_run_at: null, version: 2 });
    const again = await editor.post(`/api/v1/reports/${created.id}/pause`).expect(200);
    expect(again.body).toEqual(paused.body); // nothing changes

    // Thursday 11:00 in Berlin: Monday to Thursday 08:00 were missed.
    clock.set(new Date('2026-03-05T10:00:00.000Z'));
    const resumed = await editor.post(`/api/v1/reports/${created.id}/resume`).expect(200);
    expect(resumed.body).toMatchObject({ paused: false, next_run_at: '2026-03-06T07:00:00.000Z', version: 3 });
    const twice = await editor.post(`/api/v1/reports/${created.id}/resume`).expect(200);
    expect(twice.body).toEqual(resumed.body);

    await waitFor(() => (events.some((e) => e.data.id === created.id && e.data.change === 'resumed') ? true : undefined), 'resumed event');
    expect(events.filter((e) => e.data.id === created.id).map((e) => e.data.change)).toEqual(['created', 'paused', 'resumed']);
    clock.set(NOW);
  });

  it('a pause that waited for the lock on the report shows the run queued meanwhile', async () => {
    // A run is queued (its row, and the report's last_run_id) in a transaction that holds the
    // report's row while the pause waits for it. A lock and its read in one statement would see
    // the report's new row but not the run's (PostgreSQL re-reads only the locked row after the
    // wait), and answer last_run null.
    const created = (await editor.post('/api/v1/reports').send(report({ title: 'Locked meanwhile', paused: true })).expect(201)).body;
    const store = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });
    const holder = await store.reserve();
    try {
      const runId = randomUUID();
      await holder`begin`;
      await holder`insert into runs (id, report_id, trigger, status, created_at, updated_at) values (${runId}, ${created.id}, 'manual', 'pending', now(), now())`;
      await holder`update reports set last_run_id = ${runId} where id = ${created.id}`;
      const pausing = editor.post(`/api/v1/reports/${created.id}/pause`).then((r) => r);
      await until(async () => (await store`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`).length > 0, 'the pause waiting for the lock');
      await holder`commit`;
      const paused = await pausing;
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({ paused: true, last_run: { id: runId, status: 'pending', trigger: 'manual' } });
    } finally {
      holder.release();
      await store.end();
    }
  });

  it('a change of a locked report answers with its last run without reading the report again', async () => {
    const created = (await editor.post('/api/v1/reports').send(report({ title: 'Read once' })).expect(201)).body;
    const runId = randomUUID();
    await h.process.container.sql`insert into runs (id, report_id, trigger, status, created_at, updated_at) values (${runId}, ${created.id}, 'manual', 'success', now(), now())`;
    await h.process.container.sql`update reports set last_run_id = ${runId} where id = ${created.id}`;
    // The store's statements as postgres.js builds them (its `debug` hook), through the repository itself.
    const sent: string[] = [];
    const store = postgres(h.iso.databaseUrl, { max: 1, onnotice: () => undefined, debug: (_c, text) => { sent.push(text); } });
    try {
      const db = drizzle(preparing(store), { schema });
      const change = async (locked: boolean) => db.transaction(async (tx) => {
        const repo = createReportsRepo(tx);
        const before = (await repo.findForUpdate(created.id))!;
        sent.length = 0;
        return repo.update(created.id, undefined, { paused: !before.paused, nextRunAt: null }, new Date(), locked ? before : undefined);
      });
      const once = await change(true);
      expect(sent.filter((t) => !/^(commit|rollback)/i.test(t))).toHaveLength(1); // the update, returning the row
      expect(once).toMatchObject({ id: created.id, paused: true, lastRun: { id: runId, status: 'success', trigger: 'manual' } });
      // Not given the locked record (no lock read in this transaction): read again, as before.
      const again = await change(false);
      expect(sent.filter((t) => !/^(commit|rollback)/i.test(t))).toHaveLength(2);
      expect(again).toMatchObject({ paused: false, lastRun: { id: runId, status: 'success' }, version: once.version + 1 });
    } finally {
      await store.end();
    }
  });

  it('answers 404 for an unknown report', async () => {
    await editor.post(`/api/v1/reports/${randomUUID()}/pause`).expect(404);
    await editor.post(`/api/v1/reports/${randomUUID()}/resume`).expect(404);
  });
});

describe('delete', () => {
  it('deletes the report, its runs and their result files; stops runs still going', async () => {
    const id = (await editor.post('/api/v1/reports').send(report({ title: 'Doomed' })).expect(201)).body.id as string;
    const done = randomUUID();
    const going = randomUUID();
    const sql = h.process.container.sql;
    await sql`insert into runs (id, report_id, trigger, status, result_key) values (${done}, ${id}, 'manual', 'success', ${`${id}/${done}`})`;
    await sql`insert into runs (id, report_id, trigger, status) values (${going}, ${id}, 'schedule', 'running')`;
    await sql`update reports set last_run_id = ${going} where id = ${id}`;
    const files = createLocalArtifactStore(h.settings.dataDir);
    const writer = await files.createResult(`${id}/${done}`, [{ name: 'n', type: 'int4' }]);
    await writer.write([[1], [2]]);
    await writer.finish();
    expect(await files.readResult(`${id}/${done}`)).toBeDefined();

    await editor.delete(`/api/v1/reports/${id}`).expect(204);
    await editor.get(`/api/v1/reports/${id}`).expect(404);
    expect(await sql`select id from runs where report_id = ${id}`).toHaveLength(0);
    expect(await files.readResult(`${id}/${done}`)).toBeUndefined();
    await waitFor(() => events.find((e) => e.type === 'report.updated' && e.data.id === id && e.data.change === 'deleted'), 'deleted event');
    expect(events.filter((e) => e.type === 'run.cancel').map((e) => e.data.id)).toEqual([going]);
    await editor.delete(`/api/v1/reports/${id}`).expect(404);
  });
});

describe('with the runs API', () => {
  it('a manual run shows as last_run; deleting the report removes the run and asks to stop it', async () => {
    const id = (await editor.post('/api/v1/reports').send(report({ title: 'Run me' })).expect(201)).body.id as string;
    const run = await editor.post(`/api/v1/reports/${id}/run`).send({ deliver: false });
    expect(run.status).toBe(202);
    const got = await viewer.get(`/api/v1/reports/${id}`).expect(200);
    expect(got.body.last_run).toMatchObject({ id: run.body.id, status: 'pending', trigger: 'manual', finished_at: null });
    await editor.delete(`/api/v1/reports/${id}`).expect(204);
    await editor.get(`/api/v1/runs/${run.body.id}`).expect(404);
    await waitFor(() => events.find((e) => e.type === 'run.cancel' && e.data.id === run.body.id), 'run.cancel');
  });
});

describe('a query a report uses', () => {
  it('cannot be deleted: 409 query.in_use naming the reports', async () => {
    const q = await editor.post('/api/v1/queries').send({ name: 'Used', connection_id: (await admin.get('/api/v1/connections')).body.items[0].id, sql: 'select 1' }).expect(201);
    const r = await editor.post('/api/v1/reports').send({ title: 'User of Used', query_id: q.body.id }).expect(201);
    const res = await editor.delete(`/api/v1/queries/${q.body.id}`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'query.in_use', dependents: [{ type: 'report', id: r.body.id, name: 'User of Used' }] });
    await editor.delete(`/api/v1/reports/${r.body.id}`).expect(204);
    await editor.delete(`/api/v1/queries/${q.body.id}`).expect(204);
  });
});

describe('access', () => {
  it('a viewer reads reports but cannot create, change, pause or delete them (403)', async () => {
    const id = (await editor.post('/api/v1/reports').send(report({ title: 'Guarded' })).expect(201)).body.id as string;
    await viewer.get('/api/v1/reports').expect(200);
    await viewer.get(`/api/v1/reports/${id}`).expect(200);
    await viewer.post('/api/v1/reports').send(report()).expect(403);
    await viewer.patch(`/api/v1/reports/${id}`).send({ version: 1, title: 'x' }).expect(403);
    await viewer.post(`/api/v1/reports/${id}/pause`).expect(403);
    await viewer.delete(`/api/v1/reports/${id}`).expect(403);
  });

  it('a read-scoped key of an editor cannot create either', async () => {
    const key = keyClient(h, (await createKey(admin, { name: 'ro', scope: 'read', owner_id: editorId })).token);
    await key.get('/api/v1/reports').expect(200);
    await key.post('/api/v1/reports').send(report()).expect(403);
  });
});
