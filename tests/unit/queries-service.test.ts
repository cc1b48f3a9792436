/**
 * The queries service on small fakes of its ports: a query that something uses (reports, when
 * they land) cannot be deleted, and the answer names the dependents.
 */
import { createQueriesService } from '../../src/domain/queries/queries-service.js';
import type { QueriesStore } from '../../src/domain/queries/ports.js';
import type { QueryRecord } from '../../src/domain/queries/model.js';
import { manualClock } from '../../src/core/clock.js';
import { DomainError } from '../../src/core/errors.js';

const row: QueryRecord = {
  id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70', key: 'q', name: 'Q', description: null, connectionId: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f71',
  sql: 'select 1', parameters: [], currentVersion: 1, createdBy: null, version: 1, createdAt: new Date(0), updatedAt: new Date(0),
};

function fakeStore(): QueriesStore & { deleted: string[] } {
  const deleted: string[] = [];
  const store = {
    deleted,
    find: async (id: string) => (id === row.id && !deleted.includes(id) ? row : undefined),
    delete: async (id: string) => { deleted.push(id); return true; },
  } as unknown as QueriesStore & { deleted: string[] };
  return store;
}

it('refuses to delete a query a report uses, naming the reports, and deletes an unused one', async () => {
  const store = fakeStore();
  const report = { type: 'report', id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f72', name: 'Daily' };
  let users = [report];
  // The unit of work on the same fake: delete needs no transaction.
  const uow = { run: <T>(work: (tx: never) => Promise<T>) => work({ queries: store } as never), afterCommit: (work: () => Promise<void>) => work() };
  const service = createQueriesService({ store, uow, usage: { dependentsOf: async () => users }, clock: manualClock() });
  const refused = await service.delete(row.id).catch((err: unknown) => err);
  expect(refused).toBeInstanceOf(DomainError);
  expect(refused).toMatchObject({ code: 'query.in_use', extras: { dependents: [report] } });
  expect(store.deleted).toEqual([]);
  users = [];
  await service.delete(row.id);
  expect(store.deleted).toEqual([row.id]);
});
