/**
 * Ending a run lost for good, the one way both paths use (the sweep when its workers were lost
 * too often, the worker when its job failed for good): in one unit of work the run ends failed
 * and its events are written. A run whose deliveries are under way is not lost (its attempts are
 * jobs of their own, which end it); its query step had no attempts yet.
 */
import type { UnitOfWork } from '../unit-of-work/ports.js';
import { runChanged } from './events.js';
import type { RunError, RunRecord } from './model.js';

export async function endLostRun(
  uow: UnitOfWork, runId: string, error: RunError, now: Date, leaseMs?: number,
): Promise<RunRecord | undefined> {
  return uow.run(async (tx) => {
    const run = await tx.runEngine.markLost(runId, error, now, leaseMs);
    if (!run) return undefined;
    await tx.outbox.add(runChanged(run));
    return run;
  });
}
