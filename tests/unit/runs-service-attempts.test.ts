/**
 * The runs service answers a pending run's delivery attempts without reading them: attempts are
 * planned by a run's hand-over, which only a running run makes (run-engine-repo.ts HAND_OVER_SQL,
 * the state machine's `plan`), so a run just queued (POST .../run, .../test-delivery) costs the
 * API no read of them. Any other run's attempts are read.
 */
import { manualClock } from '../../src/core/clock.js';
import { createRunsService } from '../../src/domain/runs/runs-service.js';
import type { RunRecord } from '../../src/domain/runs/model.js';
import { RUN_STATUSES } from '../../src/domain/runs/model.js';
import { memoryLog } from '../support/fakes/log.js';

const unused = new Proxy({}, { get: () => () => { throw new Error('not used here'); } });

test('a pending run has no attempts to read; every other status reads them', async () => {
  const read: string[] = [];
  const service = createRunsService({
    runs: unused as never, uow: unused as never, queue: unused as never, clock: manualClock(new Date()), log: memoryLog(),
    attempts: { listForRun: async (id: string) => { read.push(id); return []; } },
  });
  expect(await service.attemptsOf({ id: 'queued', status: 'pending' })).toEqual([]);
  expect(read).toEqual([]);
  const others = RUN_STATUSES.filter((s) => s !== 'pending') as RunRecord['status'][];
  expect(others.length).toBeGreaterThan(3);
  for (const status of others) await service.attemptsOf({ id: status, status });
  expect(read).toEqual(others);
});
