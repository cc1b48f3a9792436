/**
 * What the store knows of stored result files: their count, bytes and oldest, and the runs
 * whose files retention removes. The store is shared by every instance, so svc_storage_bytes
 * and GET /system/storage read the same figures everywhere.
 */
import { and, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import { runResults, runs } from '../schema.js';
import type { Db } from '../client.js';
import type { StorageRepo, StorageUsage } from '../../../domain/results/ports.js';
import type { InlineResultRows } from '../../artifacts/inline-results.js';

export function createStorageRepo(db: Db): StorageRepo & InlineResultRows {
  return {
    async usage(): Promise<StorageUsage> {
      const [row] = await db.select({
        bytes: sql<string>`coalesce(sum(${runs.resultBytes}), 0)::text`,
        files: sql<number>`count(*)::int`,
        oldest: sql<string | null>`min(${runs.createdAt})::text`,
      }).from(runs).where(isNotNull(runs.resultKey));
      return { bytes: Number(row?.bytes ?? 0), files: row?.files ?? 0, oldest: row?.oldest ? new Date(row.oldest) : null };
    },
    /** Finished runs with a result file created before `before`, oldest first (at most `limit`). */
    async expired(before: Date, limit: number): Promise<Array<{ id: string; resultKey: string }>> {
      const rows = await db.select({ id: runs.id, resultKey: runs.resultKey }).from(runs)
        .where(and(isNotNull(runs.resultKey), isNotNull(runs.finishedAt), lt(runs.createdAt, before)))
        .orderBy(runs.createdAt).limit(limit);
      return rows.map((r) => ({ id: r.id, resultKey: r.resultKey! }));
    },
    /** Forgets the file of these runs (after it was removed); a file kept in the store goes with it, in the same statement. */
    async forget(runIds: string[]): Promise<void> {
      if (runIds.length === 0) return;
      await db.execute(sql`with kept as (delete from ${runResults} where ${inArray(runResults.runId, runIds)})
        update ${runs} set result_key = null, result_bytes = null where ${inArray(runs.id, runIds)}`);
    },
    /** A small result file kept in the store (src/infra/artifacts/inline-results.ts). */
    async read(runId: string): Promise<Buffer | undefined> {
      const [row] = await db.select({ bytes: runResults.bytes }).from(runResults).where(eq(runResults.runId, runId));
      return row?.bytes;
    },
  };
}
