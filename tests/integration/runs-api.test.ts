/**
 * The runs API without a worker (SVC_ROLES api): manual and test runs queued as pending with a
 * BullMQ job whose id is the run id, Idempotency-Keys (repeat, mismatch, concurrent repeats,
 * 24-hour window), cancel of pending, running and finished runs, filters and pages, and the
 * live event stream over a real socket.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import postgres from 'postgres';
import { manualClock } from '../../src/core/clock.js';
import { newId } from '../../src/core/ids.js';
import { createRedis } from '../../src/infra/queue/queues.js';
import { createRunsRepo } from '../../src/infra/db/stores/runs-repo.js';
import { IDEMPOTENCY_WINDOW_MS } from '../../src/domain/runs/runs-service.js';
import { createDb } from '../../src/infra/db/client.js';
import { outboxRepo } from '../../src/infra/db/stores/events-repo.js';
import { createEventBus, type BusEvent } from '../../src/infra/events/event-bus.js';
import { startHerald, type Herald } from '../support/harness.js';
import { createKey, createSignedInUser, setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';
import type { ChangeEvent } from '../../src/domain/events/model.js';

const clock = manualClock(new Date('2026-11-22T08:00:00.000Z'));
let h: Herald;
let admin: SessionClient;
let editor: SessionClient & { password: string };
let viewer: SessionClient;
let src: PostgresSource;
let store: postgres.Sql;
let queue: Queue;
let queueConnection: ReturnType<typeof createRedis>;
let reportId: string;
let otherReportId: string;
let queryId: string;

/** A report row (the reports API is exercised in reports.test.ts). */
async function insertReport(title: string, queryId: string): Promise<string> {
  const id = newId();
  await store`insert into reports (id, key, title, query_id, parameters, condition)
    values (${id}, ${id}, ${title}, ${queryId}, ${store.json({ region: 'EU' })}, ${store.json({ type: 'rows_exist' })})`;
  return id;
}

beforeAll(async () => {
  h = await startHerald({ clock });
  admin = await setupAdmin(h);
  editor = await createSignedInUser(h, admin, { name: 'Edna', email: 'edna@example.com', role: 'editor' });
  viewer = await createSignedInUser(h, admin, { name: 'Vic', email: 'vic@example.com', role: 'viewer' });
  src = await createPostgresSource(async (sql) => { await sql`create table t (region text)`; });
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Src')).expect(201)).body.id as string;
  queryId = (await editor.post('/api/v1/queries').send({
    name: 'Q', connection_id: connectionId, sql: 'select * from t where region = {{ region }}',
    parameters: [{ name: 'region', type: 'string', required: true }],
  }).expect(201)).body.id as string;
  store = postgres(h.iso.databaseUrl, { max: 2, onnotice: () => undefined });
  reportId = await insertReport('Daily', queryId);
  otherReportId = await insertReport('Weekly', queryId);
  queueConnection = createRedis(h.iso.redisUrl, 'worker');
  queue = new Queue('runs', { connection: queueConnection, prefix: h.iso.queuePrefix });
});
afterAll(async () => {
  await queue.close();
  queueConnection.disconnect();
  await store.end();
  await h.stop();
  await src.drop();
});

describe('POST /reports/{id}/run', () => {
  it('answers 202 with the pending manual run, queued with the run id as job id', async () => {
    const res = await editor.post(`/api/v1/reports/${reportId}/run`).send({ deliver: false });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      report_id: reportId, status: 'pending', trigger: 'manual', deliver: false, parameters: { region: 'EU' },
      condition: { type: 'rows_exist' }, created_by: editor.userId, steps: [], has_result: false, attempts: 0,
      created_at: '2026-11-22T08:00:00.000Z', started_at: null, finished_at: null,
    });
    const job = await queue.getJob(res.body.id);
    expect(job?.name).toBe('run-report');
    expect(job?.data).toEqual({ runId: res.body.id, reportId });
    const [report] = await store`select last_run_id from reports where id = ${reportId}`;
    expect(report!.last_run_id).toBe(res.body.id);
  });

  it('delivers by default, and takes no body at all', async () => {
    const res = await editor.post(`/api/v1/reports/${reportId}/run`);
    expect(res.status).toBe(202);
    expect(res.body.deliver).toBe(true);
  });

  it('answers the same run for the same Idempotency-Key, and 409 for another body or report', async () => {
    const first = await editor.post(`/api/v1/reports/${reportId}/run`).set('Idempotency-Key', 'key-1').send({ deliver: true });
    expect(first.status).toBe(202);
    const again = await editor.post(`/api/v1/reports/${reportId}/run`).set('Idempotency-Key', 'key-1').send({ deliver: true });
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    const otherBody = await editor.post(`/api/v1/reports/${reportId}/run`).set('Idempotency-Key', 'key-1').send({ deliver: false });
    expect(otherBody.status).toBe(409);
    expect(otherBody.body.code).toBe('idempotency.mismatch');
    const otherReport = await editor.post(`/api/v1/reports/${otherReportId}/run`).set('Idempotency-Key', 'key-1').send({ deliver: true });
    expect(otherReport.body.code).toBe('idempotency.mismatch');
    // Another caller's key is its own.
    const adminRun = await admin.post(`/api/v1/reports/${reportId}/run`).set('Idempotency-Key', 'key-1').send({ deliver: true });
    expect(adminRun.status).toBe(202);
    expect(adminRun.body.id).not.toBe(first.body.id);
    const [count] = await store`select count(*)::int as n from runs where created_by = ${editor.userId} and id = ${first.body.id}`;
    expect(count!.n).toBe(1);
  });

  it('makes one run for concurrent repeats of one key', async () => {
    const before = (await store`select count(*)::int as n from runs`)[0]!.n as number;
    const answers = await Promise.all(Array.from({ length: 8 }, () =>
      editor.post(`/api/v1/reports/${reportId}/run`).set('Idempotency-Key', 'together').send({ deliver: true })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const after = (await store`select count(*)::int as n from runs`)[0]!.n as number;
    expect(after - before).toBe(1);
  });

  it('answers 404 when the report is deleted while the run is being made', async () => {
    const doomed = await insertReport('Doomed', queryId);
    // The deletion holds the report's row until it commits: the request reads the report (the
    // deletion is not committed yet), then its insert waits on the row; the deletion commits.
    // (One statement reads the report and inserts the run: its text holds the insert.)
    const res = await whileDeleting(doomed, 'insert into runs', () => editor.post(`/api/v1/reports/${doomed}/run`).send({}));
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    expect((await store`select count(*)::int as n from runs where report_id = ${doomed}`)[0]!.n).toBe(0);
  });

  it('makes no run when the outbox refuses its events: the run, the report\'s last run and the events commit together or not at all', async () => {
    const refused = await insertReport('Refused', queryId);
    await store.unsafe(`create function refuse_queued() returns trigger language plpgsql as $$ begin raise exception 'outbox refused'; end $$;
      create trigger refuse_queued before insert on events for each row when (new.data->>'report_id' = '${refused}') execute function refuse_queued()`);
    try {
      const res = await editor.post(`/api/v1/reports/${refused}/run`).send({});
      expect(res.status).toBe(500);
    } finally {
      await store.unsafe('drop trigger refuse_queued on events; drop function refuse_queued()');
    }
    expect((await store`select count(*)::int as n from runs where report_id = ${refused}`)[0]!.n).toBe(0);
    expect((await store`select last_run_id from reports where id = ${refused}`)[0]!.last_run_id).toBeNull();
    expect((await editor.post(`/api/v1/reports/${refused}/run`).send({})).status).toBe(202);
  });

  it('answers 404 to an idempotent repeat whose report, and with it the first run, is deleted before or during the repeat', async () => {
    // Deleted before: the key's record went with the first run.
    const before = await insertReport('Deleted before the repeat', queryId);
    expect((await editor.post(`/api/v1/reports/${before}/run`).set('Idempotency-Key', 'gone-before').send({})).status).toBe(202);
    await store`delete from reports where id = ${before}`;
    const late = await editor.post(`/api/v1/reports/${before}/run`).set('Idempotency-Key', 'gone-before').send({});
    expect([late.status, late.body.code]).toEqual([404, 'not_found']);

    // Deleted during: the repeat waits on the key's record, which the deletion removes.
    const during = await insertReport('Deleted during the repeat', queryId);
    expect((await editor.post(`/api/v1/reports/${during}/run`).set('Idempotency-Key', 'gone-during').send({})).status).toBe(202);
    const raced = await whileDeleting(during, 'insert into "idempotency_keys"',
      () => editor.post(`/api/v1/reports/${during}/run`).set('Idempotency-Key', 'gone-during').send({}));
    expect([raced.status, raced.body.code]).toEqual([404, 'not_found']);
    expect((await store`select count(*)::int as n from idempotency_keys where key in ('gone-before', 'gone-during')`)[0]!.n).toBe(0);
  });

  it('answers 404 to an idempotent repeat that reads the key\'s record and then finds its first run gone', async () => {
    // A deletion of the report that commits between the repeat's read of the key's record and
    // its read of the run. Made to happen every time: the repeat's claim of the key fires this
    // trigger, which deletes the first run and the report without their cascades (replica
    // mode), so the record stays for the repeat to read while its run and report are gone.
    const between = await insertReport('Deleted between the reads', queryId);
    expect((await editor.post(`/api/v1/reports/${between}/run`).set('Idempotency-Key', 'gone-between').send({})).status).toBe(202);
    await store.unsafe(`
      create function test_delete_between() returns trigger language plpgsql as $$
      begin
        perform set_config('session_replication_role', 'replica', true);
        delete from runs where id = (select run_id from idempotency_keys k
          where k.user_id = new.user_id and k.operation = new.operation and k.key = new.key);
        delete from reports where id = '${between}';
        perform set_config('session_replication_role', 'origin', true);
        return new;
      end $$`);
    await store.unsafe(`create trigger test_delete_between before insert on idempotency_keys
      for each row when (new.key = 'gone-between') execute function test_delete_between()`);
    try {
      const res = await editor.post(`/api/v1/reports/${between}/run`).set('Idempotency-Key', 'gone-between').send({});
      expect([res.status, res.body.code]).toEqual([404, 'not_found']);
    } finally {
      await store.unsafe('drop trigger test_delete_between on idempotency_keys');
      await store.unsafe('drop function test_delete_between()');
      await store`delete from idempotency_keys where key = 'gone-between'`;
    }
  });

  it('answers 404 for an unknown report, 403 for a viewer, 422 for a bad key or body', async () => {
    expect((await editor.post(`/api/v1/reports/${newId()}/run`).send({})).status).toBe(404);
    const denied = await viewer.post(`/api/v1/reports/${reportId}/run`).send({});
    expect(denied.status).toBe(403);
    const badBody = await editor.post(`/api/v1/reports/${reportId}/run`).send({ deliver: 'yes' });
    expect(badBody.status).toBe(422);
    expect(badBody.body.errors).toEqual([expect.objectContaining({ field: 'deliver' })]);
    const badKey = await editor.post(`/api/v1/reports/${reportId}/run`).set('Idempotency-Key', 'a'.repeat(256)).send({});
    expect(badKey.status).toBe(422);
  });

  it('runs with an API key of scope run, not read', async () => {
    const runKey = await createKey(admin, { name: 'pipeline', scope: 'run', owner_id: editor.userId });
    const readKey = await createKey(admin, { name: 'reader', scope: 'read', owner_id: editor.userId });
    const ok = await h.http.post(`/api/v1/reports/${reportId}/run`).set('Authorization', `Bearer ${runKey.token}`).set('Idempotency-Key', 'ci-42').send({});
    expect(ok.status).toBe(202);
    expect(ok.body.created_by).toBe(editor.userId);
    const no = await h.http.post(`/api/v1/reports/${reportId}/run`).set('Authorization', `Bearer ${readKey.token}`).send({});
    expect(no.status).toBe(403);
  });
});

describe('POST /reports/{id}/test-delivery', () => {
  it('queues a run with trigger test', async () => {
    const res = await editor.post(`/api/v1/reports/${reportId}/test-delivery`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ trigger: 'test', status: 'pending', deliver: true, created_by: editor.userId });
    expect(await queue.getJob(res.body.id)).toBeDefined();
  });
});

describe('cancel', () => {
  it('cancels a pending run at once (200) and then answers 409 run.finished', async () => {
    const run = (await editor.post(`/api/v1/reports/${reportId}/run`).send({})).body;
    const res = await editor.post(`/api/v1/runs/${run.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: run.id, status: 'cancelled', error: { code: 'run.cancelled' } });
    expect(res.body.finished_at).toEqual(expect.any(String));
    const again = await editor.post(`/api/v1/runs/${run.id}/cancel`);
    expect(again.status).toBe(409);
    expect((await h.http.get('/metrics')).text).toMatch(/svc_runs_total\{status="cancelled",trigger="manual"\} 1/);
    expect(again.body.code).toBe('run.finished');
  });

  it('asks the worker holding a running run to stop (202) through the event bus', async () => {
    const run = (await editor.post(`/api/v1/reports/${reportId}/run`).send({})).body;
    await store`update runs set status = 'running', started_at = now() where id = ${run.id}`;
    const seen: BusEvent[] = [];
    const bus = otherProcessBus();
    await bus.subscribe((e) => seen.push(e));
    try {
      const res = await editor.post(`/api/v1/runs/${run.id}/cancel`);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'running', cancel_requested_at: '2026-11-22T08:00:00.000Z' });
      await waitFor(() => seen.some((e) => e.type === 'run.cancel' && e.data.id === run.id));
    } finally {
      await bus.close();
    }
  });

  it('answers 404 for an unknown run and 403 for a viewer', async () => {
    expect((await editor.post(`/api/v1/runs/${newId()}/cancel`)).status).toBe(404);
    const run = (await editor.post(`/api/v1/reports/${reportId}/run`).send({})).body;
    expect((await viewer.post(`/api/v1/runs/${run.id}/cancel`)).status).toBe(403);
  });
});

describe('GET /runs and /runs/{id}', () => {
  it('lists newest first, filtered by status, report and trigger, in pages', async () => {
    const all = await viewer.get('/api/v1/runs?limit=200');
    expect(all.status).toBe(200);
    const times = all.body.items.map((r: { created_at: string; id: string }) => `${r.created_at} ${r.id}`);
    expect(times).toEqual([...times].sort().reverse());
    const cancelled = await viewer.get('/api/v1/runs?status=cancelled');
    expect(cancelled.body.items.length).toBeGreaterThan(0);
    expect(cancelled.body.items.every((r: { status: string }) => r.status === 'cancelled')).toBe(true);
    const tests = await viewer.get(`/api/v1/runs?trigger=test&report_id=${reportId}`);
    expect(tests.body.items).toHaveLength(1);
    const other = await viewer.get(`/api/v1/runs?report_id=${otherReportId}`);
    expect(other.body.items).toEqual([]);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await viewer.get(`/api/v1/runs?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((r: { id: string }) => r.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.body.items.map((r: { id: string }) => r.id));
    expect((await viewer.get('/api/v1/runs?status=done')).status).toBe(422);
    expect((await viewer.get('/api/v1/runs?cursor=nonsense')).body.errors).toEqual([expect.objectContaining({ field: 'cursor' })]);
  });

  it('shows one run with its steps, parameters and condition; 404 for an unknown id', async () => {
    const run = (await editor.post(`/api/v1/reports/${reportId}/run`).send({})).body;
    const res = await viewer.get(`/api/v1/runs/${run.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(run);
    expect((await viewer.get(`/api/v1/runs/${newId()}`)).status).toBe(404);
  });
});

describe('GET /events', () => {
  it('streams run.updated from this and other processes, with increasing ids, to a viewer key', async () => {
    const server = http.createServer(h.process.app!);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const key = await createKey(admin, { name: 'watcher', scope: 'read', owner_id: viewer.userId });
    const controller = new AbortController();
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/events`, {
        headers: { Authorization: `Bearer ${key.token}` }, signal: controller.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = res.body!.getReader();
      let text = '';
      const readUntil = async (done: (t: string) => boolean) => {
        const deadline = Date.now() + 10_000;
        while (!done(text) && Date.now() < deadline) {
          const chunk = await reader.read();
          if (chunk.done) break;
          text += Buffer.from(chunk.value).toString('utf8');
        }
      };
      // The stream has subscribed once its first bytes (the retry line) arrive.
      await readUntil((t) => t.includes('retry:'));
      const run = (await editor.post(`/api/v1/reports/${reportId}/run`).send({})).body;
      // Another process (a worker, say) publishes on the same bus.
      const bus = otherProcessBus();
      await bus.publish({ type: 'run.updated', data: { id: run.id, report_id: reportId, status: 'running', trigger: 'manual' } });
      await bus.publish({ type: 'run.cancel', data: { id: run.id } }); // internal: never streamed
      await bus.publish({ type: 'report.updated', data: { id: reportId, change: 'updated' } });
      await bus.close();
      await readUntil((t) => t.includes('"change":"updated"'));
      const events = text.split('\n\n').filter((b) => b.includes('event: ')).map((block) => {
        const field = (name: string) => block.split('\n').find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
        return { event: field('event'), id: Number(field('id')), data: JSON.parse(field('data') ?? 'null') };
      });
      const mine = events.filter((e) => e.data?.id === run.id || e.data?.id === reportId);
      expect(mine.map((e) => [e.event, e.data.status ?? e.data.change])).toEqual([
        ['run.updated', 'pending'], ['report.updated', 'ran'], ['run.updated', 'running'], ['report.updated', 'updated'],
      ]);
      expect(events.some((e) => e.event === 'run.cancel')).toBe(false);
      const ids = events.map((e) => e.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      controller.abort();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses an anonymous caller', async () => {
    expect((await h.http.get('/api/v1/events')).status).toBe(401);
  });
});

// Last: moving the clock a day on ends the sessions above.
describe('the Idempotency-Key window', () => {
  it('forgets a key after 24 hours', async () => {
    const first = await editor.post(`/api/v1/reports/${reportId}/run`).set('Idempotency-Key', 'daily').send({});
    clock.advance(23 * 3600_000);
    const within = await editor.post(`/api/v1/reports/${reportId}/run`).set('Idempotency-Key', 'daily').send({});
    expect(within.body.id).toBe(first.body.id);
    clock.advance(2 * 3600_000);
    const later = await editor.post(`/api/v1/reports/${reportId}/run`).set('Idempotency-Key', 'daily').send({ deliver: false });
    expect(later.status).toBe(202);
    expect(later.body.id).not.toBe(first.body.id);
    // The scheduler's hourly housekeeping deletes the records past the window.
    const before = (await store`select count(*)::int as n from idempotency_keys`)[0]!.n as number;
    const purged = await createRunsRepo(h.process.container.db).purgeIdempotencyKeys(new Date(clock.now().getTime() - IDEMPOTENCY_WINDOW_MS));
    const left = await store`select key from idempotency_keys`;
    expect(purged).toBe(before - left.length);
    expect(left.map((r) => r.key)).toEqual(['daily']);
  });

});

/** The event bus as another process (a worker, say) sees it. */
/**
 * Another process (a worker, say): it writes its events to the store's outbox with its own
 * connection, and hears every process's events on the bus the relays publish on.
 */
function otherProcessBus() {
  const publisher = createRedis(h.iso.redisUrl, 'client');
  const bus = createEventBus({ publisher, prefix: h.iso.queuePrefix, connectSubscriber: () => createRedis(h.iso.redisUrl, 'worker') });
  const store = createDb(h.iso.databaseUrl, { max: 1 });
  const outbox = outboxRepo(store.db);
  return {
    publish: (e: ChangeEvent) => outbox.add([e]),
    subscribe: bus.subscribe,
    close: async () => { await bus.close(); publisher.disconnect(); await store.sql.end(); },
  };
}

/**
 * Sends a request while another transaction deletes the report: the deletion is made first and
 * held uncommitted until one of Herald's statements (its text starting with `statement`) waits
 * on a lock the deletion holds, then committed. Answers the request's response.
 */
async function whileDeleting<T>(report: string, statement: string, send: () => PromiseLike<T>): Promise<T> {
  let answer!: Promise<T>;
  await store.begin(async (tx) => {
    await tx`delete from reports where id = ${report}`;
    answer = Promise.resolve().then(send);
    await waitFor(async () => (await store`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like ${`%${statement}%`}`)[0]!.n > 0);
  });
  return answer;
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
