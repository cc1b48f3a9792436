/**
 * Retention of result files: runs older than the retention (SVC_RESULT_RETENTION_DAYS) lose
 * their file, oldest first, in batches. The file goes first and the run forgets it after, so a
 * failure leaves at worst a run whose file is gone (its download and links answer no result /
 * expired), never a file nobody knows of. Storage figures come from the store (storage-repo).
 */
import type { Log } from '../../core/log.js';
import type { ArtifactStore } from '../artifacts/ports.js';

const BATCH = 500;
const DAY_MS = 86_400_000;

export interface RetentionStore {
  expired(before: Date, limit: number): Promise<Array<{ id: string; resultKey: string }>>;
  forget(runIds: string[]): Promise<void>;
}

export function createRetention(deps: { store: RetentionStore; artifacts: Pick<ArtifactStore, 'remove'>; days: number; log: Log }) {
  return {
    /** Removes every result file past the retention at `now`; answers how many. */
    async sweep(now: Date): Promise<number> {
      const before = new Date(now.getTime() - deps.days * DAY_MS);
      let removed = 0;
      for (;;) {
        const batch = await deps.store.expired(before, BATCH);
        if (batch.length === 0) break;
        const gone: string[] = [];
        for (const run of batch) {
          try {
            await deps.artifacts.remove(run.resultKey);
            gone.push(run.id);
          } catch (err) {
            deps.log.warn('a result file could not be removed; retention tries again next hour', { run_id: run.id, err });
          }
        }
        await deps.store.forget(gone);
        removed += gone.length;
        if (gone.length < batch.length || batch.length < BATCH) break;
      }
      if (removed > 0) deps.log.info('result files past retention removed', { files: removed, retention_days: deps.days });
      return removed;
    },
  };
}
