/** Reports in the store (the reports domain's ReportsRepo), each with its last run. */
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { reports, runs } from '../schema.js';
import { pgConstraint, pgErrorCode, type Tx } from '../client.js';
import { updateVersioned } from '../versioned.js';
import { keysLike, refuseTakenKey } from '../resource-keys.js';
import { DomainError } from '../../../core/errors.js';
import { decodeStringCursor, toPage } from '../../../core/cursor.js';
import type { LastRun, ReportRecord } from '../../../domain/reports/model.js';
import type { ReportChanges, ReportsRepo } from '../../../domain/reports/ports.js';

type ReportColumns = typeof reports.$inferSelect;
type LastRunColumns = { [K in keyof LastRun]: LastRun[K] | null };

const lastRunColumns = {
  id: runs.id, status: runs.status, trigger: runs.trigger, createdAt: runs.createdAt, finishedAt: runs.finishedAt,
};

/** A report as the domain's ReportRecord has it: the schedule as one object, the last run joined. */
export function recordOf(r: ReportColumns, last: LastRunColumns | null): ReportRecord {
  return {
    id: r.id, key: r.key, title: r.title, description: r.description, queryId: r.queryId, queryVersion: r.queryVersion,
    parameters: r.parameters,
    schedule: r.scheduleCron !== null && r.scheduleTimezone !== null ? { cron: r.scheduleCron, timezone: r.scheduleTimezone } : null,
    condition: r.condition ?? null, paused: r.paused, nextRunAt: r.nextRunAt,
    lastRun: last && last.id !== null
      ? { id: last.id, status: last.status!, trigger: last.trigger!, createdAt: last.createdAt!, finishedAt: last.finishedAt }
      : null,
    ownerId: r.ownerId, createdAt: r.createdAt, updatedAt: r.updatedAt, version: r.version,
  };
}

/** The columns a change sets: the schedule's two columns move together. */
function columnsOf(c: ReportChanges): Partial<typeof reports.$inferInsert> {
  const { schedule, ...rest } = c;
  return {
    ...rest,
    ...(schedule !== undefined ? { scheduleCron: schedule?.cron ?? null, scheduleTimezone: schedule?.timezone ?? null } : {}),
  };
}

/** A missing query or a taken key is told on its field; anything else goes on. */
function fieldProblem(err: unknown): never {
  refuseTakenKey(err, 'reports', 'report');
  if (pgErrorCode(err) === '23503' && (pgConstraint(err)?.includes('query_id') ?? false)) {
    throw new DomainError('validation.failed', 'No such query', {
      errors: [{ field: 'query_id', code: 'validation.invalid', message: 'is not a query' }],
    });
  }
  throw err;
}

export function createReportsRepo(tx: Tx): ReportsRepo {
  const select = (where: SQL | undefined) => tx.select({ report: reports, lastRun: lastRunColumns }).from(reports)
    .leftJoin(runs, eq(runs.id, reports.lastRunId)).where(where);
  const find = async (id: string): Promise<ReportRecord | undefined> => {
    const [r] = await select(eq(reports.id, id));
    return r ? recordOf(r.report, r.lastRun) : undefined;
  };
  return {
    find,
    async findForUpdate(id) {
      const [locked] = await tx.select({ id: reports.id }).from(reports).where(eq(reports.id, id)).for('update');
      return locked ? find(id) : undefined;
    },
    keysLike: (base) => keysLike(tx, reports, base),
    async insert(r) {
      try {
        const [row] = await tx.insert(reports).values({ ...(columnsOf(r) as typeof reports.$inferInsert), id: r.id })
          .onConflictDoNothing({ target: reports.key }).returning();
        return row ? recordOf(row, null) : undefined;
      } catch (err) {
        return fieldProblem(err);
      }
    },
    async update(id, version, changes, now, locked) {
      let row: ReportColumns;
      try {
        row = await updateVersioned(tx, reports, id, version, columnsOf(changes), 'report', now);
      } catch (err) {
        return fieldProblem(err);
      }
      // Locked in this transaction: its last run is the one read after the lock (see the port),
      // as long as the row still points at it (read again otherwise: a record not read under the lock).
      if (locked?.id === id && (row.lastRunId ?? null) === (locked.lastRun?.id ?? null)) return { ...recordOf(row, null), lastRun: locked.lastRun };
      return (await find(id))!;
    },
    async delete(id) {
      const rows = await tx.delete(reports).where(eq(reports.id, id)).returning({ id: reports.id });
      return rows.length > 0;
    },
    async list(q) {
      // The order of reports_title_idx: lower(title), id. The cursor holds the store's own fold.
      const key = sql<string>`lower(${reports.title})`;
      const conditions: SQL[] = [];
      if (q.cursor) {
        const [title, id] = decodeStringCursor(q.cursor, 2);
        conditions.push(sql`(${key}, ${reports.id}) > (${title}, ${id}::uuid)`);
      }
      if (q.queryId !== undefined) conditions.push(eq(reports.queryId, q.queryId));
      if (q.paused !== undefined) conditions.push(eq(reports.paused, q.paused));
      const rows = await tx.select({ report: reports, lastRun: lastRunColumns, sortKey: key }).from(reports)
        .leftJoin(runs, eq(runs.id, reports.lastRunId))
        .where(conditions.length > 0 ? and(...conditions) : undefined)
        .orderBy(asc(key), asc(reports.id)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.sortKey, r.report.id], (r) => recordOf(r.report, r.lastRun));
    },
    async runLeftovers(reportId) {
      const rows = await tx.select({ id: runs.id, status: runs.status, resultKey: runs.resultKey }).from(runs).where(eq(runs.reportId, reportId));
      return {
        resultKeys: rows.flatMap((r) => (r.resultKey !== null ? [r.resultKey] : [])),
        unfinishedRunIds: rows.filter((r) => r.status === 'pending' || r.status === 'running').map((r) => r.id),
      };
    },
  };
}
