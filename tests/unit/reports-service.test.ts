/**
 * The reports service on in-memory fakes and a manual clock: a change commits with its event or
 * not at all; next_run_at follows the schedule from the clock's now; a pause and a resume never
 * make up missed times; deleting a report stops its unfinished runs and removes its files.
 */
import { manualClock } from '../../src/core/clock.js';
import type { DomainError } from '../../src/core/errors.js';
import { newId } from '../../src/core/ids.js';
import { createReportsService } from '../../src/domain/reports/reports-service.js';
import type { ReportsReadModel } from '../../src/domain/reports/ports.js';
import { FakeArtifacts } from '../support/fakes/artifacts.js';
import { FakeOutbox } from '../support/fakes/events.js';
import { memoryLog } from '../support/fakes/log.js';
import { FakeQueries } from '../support/fakes/queries.js';
import { FakeReports } from '../support/fakes/reports.js';
import { fakeUnitOfWork } from '../support/fakes/unit-of-work.js';

const T0 = new Date('2026-11-25T10:20:00.000Z'); // a Wednesday
const actor = { type: 'user' as const, userId: newId() };

function world() {
  const clock = manualClock(T0);
  const queries = new FakeQueries();
  const reports = new FakeReports(queries);
  const outbox = new FakeOutbox();
  const uow = fakeUnitOfWork({ reports, queries, outbox });
  const files = new FakeArtifacts();
  const log = memoryLog();
  // The API's read model is the store's (tests/integration/reports.test.ts); these tests never read through it.
  const reads = new Proxy({}, { get: () => () => { throw new Error('not read here'); } }) as ReportsReadModel;
  const service = createReportsService({ store: reports, uow, queries, files, clock, log, reads });
  const query = queries.seed({
    id: newId(), connectionId: newId(), sql: 'select * from sales where region = {{ region }}',
    parameters: [{ name: 'region', type: 'string', required: true }],
  });
  return { clock, queries, reports, outbox, uow, files, log, service, query };
}

const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a failure'); }, (err: unknown) => err as DomainError);

it('creates a report with its next run from the clock\'s now, and its event in the same unit of work', async () => {
  const w = world();
  const report = await w.service.create({
    title: '  Hourly sales ', queryId: w.query.id, parameters: { region: 'EU' }, schedule: { cron: '0 * * * *', timezone: 'UTC' },
  }, actor);
  expect(report).toMatchObject({ title: 'Hourly sales', version: 1, parameters: { region: 'EU' }, nextRunAt: new Date('2026-11-25T11:00:00.000Z'), ownerId: actor.userId });
  expect(w.outbox.events).toEqual([{ seq: 1, type: 'report.updated', data: { id: report.id, change: 'created', next_run_at: '2026-11-25T11:00:00.000Z' } }]);
  expect(w.uow.commits).toBe(1);
});

it('refuses values the query does not declare and a query that does not exist, committing nothing', async () => {
  const w = world();
  const unknown = await failure(w.service.create({ title: 'x', queryId: w.query.id, parameters: { regio: 'EU' } }, actor));
  expect(unknown).toMatchObject({ code: 'validation.failed' });
  expect(unknown.extras.errors![0]!.field).toMatch(/^parameters\./);
  const missing = await failure(w.service.create({ title: 'x', queryId: newId(), parameters: {} }, actor));
  expect(missing).toMatchObject({ code: 'validation.failed', extras: { errors: [expect.objectContaining({ field: 'query_id' })] } });
  expect(w.reports.rows.all()).toEqual([]);
  expect(w.outbox.events).toEqual([]);
});

it('rolls the change back when its event cannot be written: no report without its event', async () => {
  const w = world();
  w.outbox.add = async () => { throw new Error('the outbox insert failed'); };
  await expect(w.service.create({ title: 'x', queryId: w.query.id, parameters: { region: 'EU' } }, actor)).rejects.toThrow('the outbox insert failed');
  expect(w.reports.rows.all()).toEqual([]);
  expect(w.uow.rollbacks).toBe(1);
});

it('answers conflict.version for a stale version, and a changed schedule runs from now', async () => {
  const w = world();
  const report = await w.service.create({ title: 'r', queryId: w.query.id, parameters: { region: 'EU' }, schedule: { cron: '0 8 * * *', timezone: 'UTC' } }, actor);
  expect(report.nextRunAt).toEqual(new Date('2026-11-26T08:00:00.000Z'));
  const stale = await failure(w.service.update(report.id, { version: report.version + 1, title: 'late' }));
  expect(stale.code).toBe('conflict.version');
  w.clock.advance(3 * 24 * 3600_000);
  const changed = await w.service.update(report.id, { version: report.version, schedule: { cron: '30 * * * *', timezone: 'UTC' } });
  expect(changed).toMatchObject({ version: 2, nextRunAt: new Date('2026-11-28T10:30:00.000Z') });
  expect(w.outbox.events.map((e) => e.data.change)).toEqual(['created', 'updated']);
});

it('pausing clears the next run; resuming takes it up from the clock\'s now, not making up the missed times', async () => {
  const w = world();
  const report = await w.service.create({ title: 'r', queryId: w.query.id, parameters: { region: 'EU' }, schedule: { cron: '0 * * * *', timezone: 'UTC' } }, actor);
  const paused = await w.service.pause(report.id);
  expect(paused).toMatchObject({ paused: true, nextRunAt: null });
  expect(await w.service.pause(report.id)).toMatchObject({ version: paused.version }); // no change, no event
  w.clock.advance(5 * 3600_000 + 60_000);
  const resumed = await w.service.resume(report.id);
  expect(resumed).toMatchObject({ paused: false, nextRunAt: new Date('2026-11-25T16:00:00.000Z') });
  expect(w.outbox.events.map((e) => e.data.change)).toEqual(['created', 'paused', 'resumed']);
});

it('deleting a report asks its unfinished runs to stop and removes its result files, a file that will not go only logged', async () => {
  const w = world();
  const report = await w.service.create({ title: 'r', queryId: w.query.id, parameters: { region: 'EU' } }, actor);
  const running = newId();
  w.reports.leftovers.set(report.id, { resultKeys: [`${report.id}/a`, `${report.id}/b`], unfinishedRunIds: [running] });
  await (await w.files.createResult(`${report.id}/a`, [])).finish();
  const remove = w.files.remove.bind(w.files);
  w.files.remove = async (key) => { if (key.endsWith('/b')) throw new Error('disk away'); await remove(key); };
  await w.service.delete(report.id);
  expect(w.reports.rows.get(report.id)).toBeUndefined();
  expect(w.outbox.events.slice(1).map((e) => [e.type, e.data.id])).toEqual([['run.cancel', running], ['report.updated', report.id]]);
  expect(w.files.files.size).toBe(0);
  expect(w.log.lines.filter((l) => l.level === 'warn').map((l) => l.fields.result_key)).toEqual([`${report.id}/b`]);
  expect((await failure(w.service.delete(report.id))).code).toBe('not_found');
});
