/**
 * The run engine on in-memory fakes of its ports and a manual clock: a run's steps, its file and
 * its events; a failing statement; the time limit and a cancellation, each in milliseconds of
 * real time (the clock is moved, not waited for); a shutdown hands the run back unrecorded.
 */
import { createHash } from 'node:crypto';
import { manualClock, type ManualClock } from '../../src/core/clock.js';
import { newId } from '../../src/core/ids.js';
import { judgeCondition } from '../../src/domain/reports/condition.js';
import { createRunEngine, type RunEngineDeps } from '../../src/domain/runs/run-engine.js';
import type { DeliveryJob } from '../../src/domain/runs/engine-ports.js';
import { RunCancelled, type RunRecord } from '../../src/domain/runs/model.js';
import { FakeArtifacts } from '../support/fakes/artifacts.js';
import { FakeConnections } from '../support/fakes/connections.js';
import { fails, fakeConnector, fakePlugins, fakePools, ndjsonRows, rows, runsUntilAborted, type FakeConnector } from '../support/fakes/connectors.js';
import { FakeOutbox } from '../support/fakes/events.js';
import { memoryLog } from '../support/fakes/log.js';
import { FakeQueries } from '../support/fakes/queries.js';
import { FakeReports } from '../support/fakes/reports.js';
import { FakeRunEngineStore } from '../support/fakes/runs.js';
import { fakeUnitOfWork, type FakeUnitOfWork } from '../support/fakes/unit-of-work.js';

const T0 = new Date('2026-11-25T10:00:00.000Z');
const TIMEOUT_MS = 15 * 60_000;
const POLL_MS = 2000;

interface World {
  clock: ManualClock; store: FakeRunEngineStore; outbox: FakeOutbox; uow: FakeUnitOfWork; artifacts: FakeArtifacts;
  connector: FakeConnector; reportId: string; finished: Array<{ status: string; seconds: number }>;
  engine: ReturnType<typeof createRunEngine>; log: ReturnType<typeof memoryLog>;
}

function world(deliveries?: RunEngineDeps['deliveries']): World {
  const clock = manualClock(T0);
  const queries = new FakeQueries();
  const reports = new FakeReports(queries);
  const connections = new FakeConnections(queries);
  const outbox = new FakeOutbox();
  const store = new FakeRunEngineStore({ reports, queries, connections, outbox });
  const uow = fakeUnitOfWork({ runEngine: store, outbox, reports, queries, connections });
  const connector = fakeConnector();
  const artifacts = new FakeArtifacts();
  const log = memoryLog();
  const finished: World['finished'] = [];
  const connection = connections.rows.put({
    id: newId(), key: 'shop', name: 'Shop', type: 'fake', host: 'db', port: 5999, database: 'shop', username: 'reader', passwordSealed: null,
    sslMode: 'disable', sslCa: null, options: {}, schemaRefreshedAt: null, createdBy: null, version: 1, createdAt: T0, updatedAt: T0,
  });
  const query = queries.seed({ id: newId(), connectionId: connection.id, sql: 'select id from sales' });
  const report = reports.rows.put({
    id: newId(), key: 'sales', title: 'Sales', description: null, queryId: query.id, queryVersion: null, parameters: {}, schedule: null, condition: null,
    paused: false, nextRunAt: null, lastRun: null, ownerId: null, createdAt: T0, updatedAt: T0, version: 1,
  });
  const engine = createRunEngine({
    store, pools: fakePools(fakePlugins(connector)), artifacts, clock, log, timeoutMs: TIMEOUT_MS, cancelPollMs: POLL_MS, conditions: judgeCondition,
    metrics: { finished: (status, _trigger, seconds) => finished.push({ status, seconds }), rows: () => undefined },
    deliveries,
  });
  return { clock, store, outbox, uow, artifacts, connector, reportId: report.id, finished, engine, log };
}

/** Lets what the timers started (promises) run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const runOf = (w: World, id: string): RunRecord => w.store.runs.get(id)!;

it('runs the query into a result file: steps, columns, a 20-row sample, the row count, two statements and their events', async () => {
  const w = world();
  const all = Array.from({ length: 45 }, (_, i) => [i + 1, i % 2 === 0 ? 'US' : 'EU']);
  w.connector.script = rows([{ name: 'id', type: 'int4' }, { name: 'region', type: 'text' }], all, 10);
  const queued = w.store.queue(w.reportId);
  await w.engine.execute(queued.id, { signal: new AbortController().signal });

  const run = runOf(w, queued.id);
  expect(run).toMatchObject({ status: 'success', rowCount: 45, attempts: 1, error: null, queryVersion: 1, resultKey: `${w.reportId}/${run.id}` });
  expect(run.sample).toHaveLength(20);
  expect(run.steps.map((s) => [s.name, s.status])).toEqual([['query', 'success'], ['result_file', 'success']]);
  expect(w.artifacts.files.get(run.resultKey!)!.rows).toEqual(all);
  // Taken, announced and its source read in one statement, ended and announced in another: no
  // unit of work (each statement is its own transaction, its events in it), no write per step.
  expect(w.store.statements).toBe(2);
  expect(w.uow.commits).toBe(0);
  expect(w.store.progressWrites).toBe(0);
  expect(w.outbox.types()).toEqual(['run.updated', 'run.updated', 'report.updated']);
  expect(w.outbox.events[1]!.data).toMatchObject({ id: run.id, status: 'success' });
  expect(w.finished).toEqual([{ status: 'success', seconds: 0 }]);
  expect(w.clock.pendingTimers()).toBe(0);
});

it('keeps a small result in the store: the bytes go with the end under a db: key, and a file a lost attempt left is removed', async () => {
  const w = world();
  w.artifacts.inlineUpTo = 5;
  const columns = [{ name: 'id', type: 'int4' }];
  w.connector.script = rows(columns, [[1], [2]], 10);
  const first = w.store.queue(w.reportId);
  await w.engine.execute(first.id, { signal: new AbortController().signal });
  const kept = runOf(w, first.id) as RunRecord & { resultInline?: Buffer };
  expect(kept).toMatchObject({ status: 'success', rowCount: 2, resultKey: `db:${w.reportId}/${first.id}` });
  expect(JSON.parse(Buffer.from(kept.resultInline!).toString('utf8'))).toEqual({ columns, rows: [[1], [2]] });
  expect(w.artifacts.files.size).toBe(0);

  // Taken again after a lost attempt that had written its (larger) file: that file is nobody's now.
  w.connector.script = rows(columns, [[3]], 10);
  const again = w.store.queue(w.reportId, { attempts: 1 });
  w.artifacts.files.set(`${w.reportId}/${again.id}`, { columns, rows: [[9], [9], [9], [9], [9], [9]] });
  await w.engine.execute(again.id, { signal: new AbortController().signal });
  expect(runOf(w, again.id)).toMatchObject({ status: 'success', attempts: 2, resultKey: `db:${w.reportId}/${again.id}` });
  expect(w.artifacts.files.size).toBe(0);
});

it('takes the rows as NDJSON lines where the connector gives them: the same file, sample, row count and hash as rows given as values', async () => {
  const columns = [{ name: 'id', type: 'int4' }, { name: 'note', type: 'text' }, { name: 'ratio', type: 'float8' }];
  const all = Array.from({ length: 45 }, (_, i) => [i + 1, i % 3 === 0 ? null : `n\u00e9 "${i}"\n`, i / 7]);
  const outcomes = [];
  for (const script of [ndjsonRows(columns, all, 7), rows(columns, all, 7)]) {
    const w = world();
    w.connector.script = script;
    const queued = w.store.queue(w.reportId);
    await w.engine.execute(queued.id, { signal: new AbortController().signal });
    const run = runOf(w, queued.id);
    expect(w.connector.executed.map((e) => e.ndjson)).toEqual([true]);
    expect(run).toMatchObject({ status: 'success', rowCount: 45, columns });
    expect(w.artifacts.files.get(run.resultKey!)!.rows).toEqual(all);
    outcomes.push({ sample: run.sample, hash: run.resultHash });
  }
  expect(outcomes[0]!.sample).toEqual(all.slice(0, 20));
  expect(outcomes[0]).toEqual(outcomes[1]);
  expect(outcomes[0]!.hash).toBe(createHash('sha256').update(JSON.stringify(columns) + all.map((r) => `\n${JSON.stringify(r)}`).join('')).digest('hex'));
});

it('hands a run over to its deliveries in one statement: the delivery step running, an attempt per delivery naming its job, run.updated; then the jobs', async () => {
  const queued: DeliveryJob[] = [];
  const planned = [1, 2].map((position) => ({ deliveryId: newId(), channelId: newId(), channelName: `Hook ${position}`, channelType: 'webhook', position }));
  const w = world({ plan: async () => planned, enqueue: async (jobs) => { queued.push(...jobs); } });
  w.store.withDeliveries.add(w.reportId);
  w.connector.script = rows([{ name: 'id', type: 'int4' }], [[1]], 10);
  const run = w.store.queue(w.reportId, { deliver: true });
  await w.engine.execute(run.id, { signal: new AbortController().signal });

  const after = runOf(w, run.id);
  expect(after).toMatchObject({ status: 'running', rowCount: 1 });
  expect(after.deliveringSince).toEqual(T0);
  expect(after.steps.map((s) => [s.name, s.status])).toEqual([['query', 'success'], ['result_file', 'success'], ['delivery', 'running']]);
  // The claim, then the hand-over: no unit of work, no write per step.
  expect(w.store.statements).toBe(2);
  expect(w.uow.commits).toBe(0);
  expect(w.store.planned.map((a) => [a.deliveryId, a.position, a.jobId])).toEqual(planned.map((d, i) => [d.deliveryId, d.position, `deliver-${w.store.planned[i]!.id}`]));
  expect(queued.map((j) => [j.attemptId, j.jobId, j.deliveryId])).toEqual(w.store.planned.map((a) => [a.id, a.jobId, a.deliveryId]));
  expect(w.outbox.events.filter((e) => e.type === 'run.updated').map((e) => e.data.status)).toEqual(['running', 'running']);
});

it('ends failed with the database\'s error on the query step, and keeps no file', async () => {
  const w = world();
  w.connector.script = fails('column "nope" does not exist');
  const queued = w.store.queue(w.reportId);
  await w.engine.execute(queued.id, { signal: new AbortController().signal });

  const run = runOf(w, queued.id);
  expect(run).toMatchObject({ status: 'failed', error: { code: 'query.failed', message: 'column "nope" does not exist' }, resultKey: null });
  expect(run.steps).toEqual([expect.objectContaining({ name: 'query', status: 'failed', error: run.error })]);
  expect(w.artifacts.files.size).toBe(0);
  expect(w.outbox.events.at(-2)!.data).toMatchObject({ id: run.id, status: 'failed', error_code: 'query.failed' });
  expect(w.clock.pendingTimers()).toBe(0);
});

it('ends failed with run.timeout when its clock passes the time limit, the statement stopped', async () => {
  const w = world();
  const statement = runsUntilAborted();
  w.connector.script = statement;
  const queued = w.store.queue(w.reportId);
  const done = w.engine.execute(queued.id, { signal: new AbortController().signal });
  await statement.started;
  // The database's own limit is a little past the run's, so that the run's speaks first.
  expect(w.connector.executed[0]!.timeoutMs).toBeGreaterThan(TIMEOUT_MS);

  w.clock.advance(TIMEOUT_MS - 1);
  await settle();
  expect(runOf(w, queued.id).status).toBe('running');
  w.clock.advance(1);
  await statement.stopped;
  await done;

  const run = runOf(w, queued.id);
  expect(run).toMatchObject({ status: 'failed', error: { code: 'run.timeout' } });
  expect(run.steps[0]).toMatchObject({ name: 'query', status: 'failed', error: { code: 'run.timeout' }, finishedAt: new Date(T0.getTime() + TIMEOUT_MS) });
  expect(w.finished).toEqual([{ status: 'failed', seconds: TIMEOUT_MS / 1000 }]);
  expect(w.clock.pendingTimers()).toBe(0);
});

it('ends cancelled when its cancel check finds the cancellation in the store, renewing its lease until then', async () => {
  const w = world();
  const statement = runsUntilAborted();
  w.connector.script = statement;
  const queued = w.store.queue(w.reportId);
  const done = w.engine.execute(queued.id, { signal: new AbortController().signal });
  await statement.started;

  for (let i = 0; i < 3; i += 1) {
    w.clock.advance(POLL_MS);
    await settle();
  }
  expect(w.store.heartbeats.get(queued.id)).toBe(3);
  expect(runOf(w, queued.id).status).toBe('running');

  // As if the run.cancel event were lost: only the row says so; the next check finds it.
  w.store.requestCancel(queued.id, w.clock.now());
  w.clock.advance(POLL_MS - 1);
  await settle();
  expect(runOf(w, queued.id).status).toBe('running');
  w.clock.advance(1);
  await done;

  const run = runOf(w, queued.id);
  expect(run).toMatchObject({ status: 'cancelled', error: { code: 'run.cancelled' } });
  expect(run.steps[0]).toMatchObject({ name: 'query', status: 'cancelled' });
  expect(w.store.heartbeats.get(queued.id)).toBe(4);
  expect(w.clock.pendingTimers()).toBe(0);
});

it('ends cancelled at once when the worker passes on a cancellation (its signal aborted with RunCancelled)', async () => {
  const w = world();
  const statement = runsUntilAborted();
  w.connector.script = statement;
  const queued = w.store.queue(w.reportId);
  const worker = new AbortController();
  const done = w.engine.execute(queued.id, { signal: worker.signal });
  await statement.started;
  worker.abort(new RunCancelled());
  await done;
  expect(runOf(w, queued.id)).toMatchObject({ status: 'cancelled', error: { code: 'run.cancelled' } });
  expect(w.store.heartbeats.get(queued.id)).toBeUndefined();
  expect(w.clock.pendingTimers()).toBe(0);
});

it('hands the run back unrecorded when the worker shuts down: it stays running for the next worker', async () => {
  const w = world();
  const statement = runsUntilAborted();
  w.connector.script = statement;
  const queued = w.store.queue(w.reportId);
  const worker = new AbortController();
  const done = w.engine.execute(queued.id, { signal: worker.signal });
  await statement.started;
  worker.abort('the worker is shutting down');
  await expect(done).rejects.toThrow();
  expect(runOf(w, queued.id)).toMatchObject({ status: 'running', attempts: 1, finishedAt: null });
  expect(w.outbox.types()).toEqual(['run.updated']);
  expect(w.clock.pendingTimers()).toBe(0);
});

it('ends skipped when its condition is not met', async () => {
  const w = world();
  w.connector.script = rows([{ name: 'id', type: 'int4' }], []);
  const queued = w.store.queue(w.reportId, { condition: { type: 'rows_exist' } });
  await w.engine.execute(queued.id, { signal: new AbortController().signal });
  const run = runOf(w, queued.id);
  expect(run).toMatchObject({ status: 'skipped', conditionMet: false, rowCount: 0 });
  expect(run.steps.map((s) => s.name)).toEqual(['query', 'condition', 'result_file']);
});
