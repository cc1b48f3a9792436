/**
 * The run engine's claims and ends as one statement for the calls that meet
 * (src/infra/db/stores/run-engine-repo.ts over src/infra/db/statement-batches.ts), on the real
 * store: claims made together go out in fewer statements than calls and each caller gets its own
 * run and source; ends made together each end their own run with their own progress, events (in
 * order) and kept result, and answer only for themselves (a stale attempt answers false); an end
 * the store refuses fails alone while the others of its batch commit. A batch finds its runs by
 * their ids even when the statement's generic plan was made while few runs were unfinished and
 * thousands are pending now. Runs queued together (the API's POSTs that meet) go as one
 * statement likewise: each is made, its report's last run is the newest of the batch, and a run
 * of a report that is gone is none, alone.
 */
import { gunzipSync } from 'node:zlib';
import type { Sql } from '../../src/infra/db/client.js';
import { newId } from '../../src/core/ids.js';
import { CLAIM_SQL, createRunEngineRepo, END_SQL } from '../../src/infra/db/stores/run-engine-repo.js';
import { createRunsRepo } from '../../src/infra/db/stores/runs-repo.js';
import { gzipResult } from '../../src/infra/artifacts/small-gzip.js';
import { runChanged } from '../../src/domain/runs/events.js';
import type { RunStep } from '../../src/domain/runs/model.js';
import { startHerald, type Herald } from '../support/harness.js';
import { setupAdmin, type SessionClient } from '../support/identity.js';
import { createPostgresSource, type PostgresSource } from '../support/user-databases.js';

let h: Herald;
let admin: SessionClient;
let src: PostgresSource;
let reportId: string;
let queryId: string;

beforeAll(async () => {
  h = await startHerald({ env: { SVC_ROLES: 'api', SVC_OUTBOUND_ALLOW: '127.0.0.1' } });
  admin = await setupAdmin(h);
  src = await createPostgresSource(async () => undefined);
  const connectionId = (await admin.post('/api/v1/connections').send(src.connection('Shop')).expect(201)).body.id as string;
  queryId = (await admin.post('/api/v1/queries').send({ name: 'q', connection_id: connectionId, sql: 'select 1 as n' }).expect(201)).body.id as string;
  reportId = (await admin.post('/api/v1/reports').send({ title: 'r', query_id: queryId }).expect(201)).body.id as string;
});
afterAll(async () => {
  await h.stop();
  await src.drop();
});

/** The store's client, its statements counted and each batch's run ids kept, in the order sent. */
function counted(sql: Sql) {
  let statements = 0;
  const batches: string[][] = [];
  const client = new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop === 'unsafe') {
        return (...args: Parameters<Sql['unsafe']>) => {
          statements += 1;
          batches.push((JSON.parse(String(args[1]![0])) as Array<{ id: string }>).map((i) => i.id));
          return target.unsafe(...args);
        };
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return { client, statements: () => statements, batches };
}
/** The same ids in another order (reversed halves): a call order that is not the ids' order. */
const shuffled = (ids: string[]) => [...ids.slice(0, ids.length / 2).reverse(), ...ids.slice(ids.length / 2).reverse()];
/** Every batch's runs in the order of their ids (the order its statement locks them in). */
const sortedBatches = (batches: string[][]) => batches.every((b) => b.every((id, i) => i === 0 || b[i - 1]! < id));

async function pendingRuns(count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId());
  const sql = h.process.container.sql;
  for (const id of ids) await sql`insert into runs (id, report_id, trigger, status, attempts) values (${id}, ${reportId}, 'manual', 'pending', 0)`;
  return ids;
}
const step = (at: Date): RunStep => ({ name: 'query', status: 'running', startedAt: at, finishedAt: null, error: null });
const lastEventId = async () => Number((await h.process.container.sql`select coalesce(max(id), 0)::bigint as n from events`)[0]!.n);

it('claims runs made together in fewer statements, each caller its own run and source', async () => {
  const ids = shuffled(await pendingRuns(20));
  const { client, statements, batches } = counted(h.process.container.sql);
  const repo = createRunEngineRepo(h.process.container.db, client);
  const since = await lastEventId();
  const at = new Date();
  const claimed = await Promise.all(ids.map((id, i) => repo.claim(id, new Date(at.getTime() + i), [step(at)])));
  expect(statements()).toBeLessThan(ids.length);
  expect(statements()).toBeGreaterThanOrEqual(2); // the first alone, the others together
  expect(sortedBatches(batches)).toBe(true);
  expect(batches.some((b) => b.length > 1)).toBe(true);
  claimed.forEach((c, i) => {
    expect(c?.run).toMatchObject({ id: ids[i], status: 'running', attempts: 1, reportId });
    expect(c?.run.startedAt?.getTime()).toBe(at.getTime() + i);
    expect(c?.source?.query).toMatchObject({ sql: 'select 1 as n' });
    expect(c?.source?.connection?.name).toBe('Shop');
  });
  const events = await h.process.container.sql`select type, data from events where id > ${since} and type = 'run.updated' order by id`;
  expect(events.map((e) => (e.data as { id: string }).id)).toEqual(ids);
  // A run claimed twice at once is one claim after the other (attempts 2, then 3), never one row for two callers.
  const again = await Promise.all([repo.claim(ids[0]!, at, [step(at)]), repo.claim(ids[0]!, at, [step(at)])]);
  expect(again.map((c) => c?.run.attempts).sort()).toEqual([2, 3]);
  // A run that is gone is undefined for its caller only.
  const [gone, there] = await Promise.all([repo.claim(newId(), at, []), repo.claim(ids[1]!, at, [])]);
  expect(gone).toBeUndefined();
  expect(there?.run.attempts).toBe(2);
});

it('ends runs made together, each with its own progress, events and kept result; a stale attempt answers false', async () => {
  const ids = shuffled(await pendingRuns(12));
  const c = h.process.container;
  const { client, statements, batches } = counted(c.sql);
  const repo = createRunEngineRepo(c.db, client);
  const at = new Date();
  await Promise.all(ids.map((id) => repo.claim(id, at, [step(at)])));
  const before = statements();
  const since = await lastEventId();
  const ended = await Promise.all(ids.map((id, i) => {
    const finishedAt = new Date(at.getTime() + 1000 + i);
    const status = i % 3 === 0 ? 'failed' : 'success';
    const error = status === 'failed' ? { code: 'query.failed', message: `run ${i} failed` } : null;
    const kept = i % 2 === 0 ? gzipResult(`{"columns":[]}\n[${i}]\n`) : undefined;
    return repo.end(id, i === 5 ? 7 : 1, {
      status, error, finishedAt, steps: [{ ...step(at), status: 'success', finishedAt }], rowCount: i,
      ...(kept ? { resultInline: kept, resultKey: `db:${id}` } : {}),
    }, runChanged({ id, reportId, trigger: 'manual', status, finishedAt, error }));
  }));
  expect(statements() - before).toBeLessThan(ids.length);
  expect(sortedBatches(batches)).toBe(true);
  expect(ended).toEqual(ids.map((_id, i) => i !== 5));
  const rows = await c.sql`select r.id, r.status, r.row_count, r.error_message, r.attempts, k.bytes from runs r left join run_results k on k.run_id = r.id
    where r.id in ${c.sql(ids)}`;
  const byId = new Map(rows.map((r) => [r.id as string, r]));
  ids.forEach((id, i) => {
    const r = byId.get(id)!;
    if (i === 5) {
      expect(r).toMatchObject({ status: 'running', row_count: null, bytes: null });
      return;
    }
    expect(r).toMatchObject({ status: i % 3 === 0 ? 'failed' : 'success', row_count: i, error_message: i % 3 === 0 ? `run ${i} failed` : null });
    if (i % 2 === 0) expect(gunzipSync(r.bytes as Buffer).toString()).toBe(`{"columns":[]}\n[${i}]\n`);
    else expect(r.bytes).toBeNull();
  });
  const events = await c.sql`select type, data from events where id > ${since} order by id`;
  const expected = ids.flatMap((id, i) => (i === 5 ? [] : runChanged({ id, reportId, trigger: 'manual', status: i % 3 === 0 ? 'failed' : 'success', finishedAt: new Date(at.getTime() + 1000 + i), error: null })
    .map((e) => [e.type, id])));
  expect(events.map((e) => [e.type, runOf(e.type as string, e.data)])).toEqual(expected);
});

/** The run an event is about (a run.updated's id; a report.updated's last run). */
const runOf = (type: string, data: unknown) => (type === 'run.updated' ? (data as { id: string }).id : (data as { last_run: { id: string } }).last_run.id);

it('fails an end the store refuses alone: the others of its batch commit', async () => {
  const ids = await pendingRuns(6);
  const c = h.process.container;
  const repo = createRunEngineRepo(c.db, c.sql);
  const at = new Date();
  await Promise.all(ids.map((id) => repo.claim(id, at, [step(at)])));
  const ends = await Promise.all(ids.map((id, i) => {
    // A NUL in the error message: text the store refuses.
    const error = { code: 'query.failed', message: i === 3 ? 'bad\u0000byte' : 'failed' };
    return repo.end(id, 1, { status: 'failed', error, finishedAt: at, steps: [] }, runChanged({ id, reportId, trigger: 'manual', status: 'failed', finishedAt: at, error }))
      .then((v) => ({ v }), (e: unknown) => ({ e }));
  }));
  ends.forEach((r, i) => (i === 3 ? expect('e' in r).toBe(true) : expect(r).toEqual({ v: true })));
  const statuses = await c.sql`select id, status from runs where id in ${c.sql(ids)}`;
  const byId = new Map(statuses.map((r) => [r.id as string, r.status as string]));
  expect(ids.map((id) => byId.get(id))).toEqual(ids.map((_id, i) => (i === 3 ? 'running' : 'failed')));
});

it('finds a batch\'s runs by their ids whatever the table looked like when the plan was made', async () => {
  const sql = h.process.container.sql;
  const conn = await sql.reserve();
  const made: string[] = [];
  try {
    // A prepared statement's generic plan is made once, from the table as it is then: here with a
    // history of 2,000 runs and none waiting; then a scheduler's minute queues thousands.
    made.push(...(await conn`insert into runs (id, report_id, trigger, status, attempts, finished_at)
      select gen_random_uuid(), ${reportId}, 'manual', 'success', 1, now() from generate_series(1, 2000) returning id`).map((r) => r.id as string));
    await conn`analyze runs`;
    await conn`set plan_cache_mode = force_generic_plan`;
    const plan = async (name: string) => JSON.stringify((await conn.unsafe(`explain (format json) execute ${name}('[{"id": "${newId()}", "n": 0}]')`))[0]!['QUERY PLAN']);
    const plans: string[] = [];
    for (const [name, text] of [['claim_plan', CLAIM_SQL], ['end_plan', END_SQL]] as const) {
      await conn.unsafe(`prepare ${name}(jsonb) as ${text.replaceAll('$1::jsonb', '$1')}`);
      plans.push(await plan(name));
    }
    made.push(...(await conn`insert into runs (id, report_id, trigger, status, attempts)
      select gen_random_uuid(), ${reportId}, 'manual', 'pending', 0 from generate_series(1, 20000) returning id`).map((r) => r.id as string));
    for (const name of ['claim_plan', 'end_plan']) plans.push(await plan(name));
    for (const p of plans) {
      expect(p).toMatch(/"Index Name":"runs_pkey"[^{}]*"Index Cond":"\(id = x\.id\)"/);
      expect(p).not.toContain('runs_unfinished_idx');
      expect(p).not.toMatch(/"Node Type":"Seq Scan"[^{}]*"Relation Name":"runs"/);
    }
  } finally {
    for (const name of ['claim_plan', 'end_plan']) await conn.unsafe(`deallocate ${name}`).catch(() => undefined);
    await conn`reset plan_cache_mode`;
    await conn`delete from runs where id = any(${made}::uuid[])`;
    conn.release();
  }
});

it('queues runs made together in fewer statements: each made, each report\'s last run its newest, a gone report\'s none', async () => {
  const c = h.process.container;
  const other = (await admin.post('/api/v1/reports').send({ title: 'other', query_id: queryId }).expect(201)).body.id as string;
  const { client, statements } = counted(c.sql);
  const repo = createRunsRepo(c.db, client);
  const since = await lastEventId();
  const at = new Date();
  const asked = Array.from({ length: 16 }, (_v, i) => ({ id: newId(), reportId: i % 4 === 3 ? other : reportId, gone: i === 9 }));
  const made = await Promise.all(asked.map((a, i) => {
    const report = a.gone ? newId() : a.reportId;
    return repo.queue({ id: a.id, reportId: report, trigger: 'manual', deliver: i % 2 === 0, createdBy: null, createdAt: new Date(at.getTime() + i) },
      runChanged({ id: a.id, reportId: report, trigger: 'manual', status: 'pending', finishedAt: null, error: null }));
  }));
  expect(statements()).toBeLessThan(asked.length);
  asked.forEach((a, i) => {
    if (a.gone) expect(made[i]).toBeUndefined();
    else expect(made[i]).toMatchObject({ id: a.id, reportId: a.reportId, status: 'pending', deliver: i % 2 === 0, createdAt: new Date(at.getTime() + i) });
  });
  const last = async (id: string) => (await c.sql`select last_run_id from reports where id = ${id}`)[0]!.last_run_id as string;
  expect(await last(reportId)).toBe(asked.filter((a) => a.reportId === reportId && !a.gone).at(-1)!.id);
  expect(await last(other)).toBe(asked.filter((a) => a.reportId === other).at(-1)!.id);
  const events = await c.sql`select type, data from events where id > ${since} order by id`;
  expect(events.map((e) => [e.type, runOf(e.type as string, e.data)]))
    .toEqual(asked.filter((a) => !a.gone).flatMap((a) => [['run.updated', a.id], ['report.updated', a.id]]));
  await c.sql`delete from runs where id = any(${asked.map((a) => a.id)}::uuid[])`;
});
