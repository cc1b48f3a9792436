/**
 * Scheduling in the store (the runs domain's ScheduleClaims and SchedulingStore): claiming due
 * reports into runs in the scheduler's unit of work, one per batch (FOR UPDATE SKIP LOCKED; one
 * multi-row insert and one multi-row update, so a tick costs what its due reports cost), and the
 * sweep's reads.
 */
import { and, asc, eq, gt, isNull, lt, or, sql as rawSql } from 'drizzle-orm';
import { runs } from '../schema.js';
import type { Condition } from '../../../domain/reports/model.js';
import type { Db, Tx } from '../client.js';
import type { PlannedRun, ScheduleClaims, SchedulingStore } from '../../../domain/runs/scheduling-ports.js';
import { QUEUED, runLeaves } from './status-writes.js';

type Value = string | number | boolean | null;
type StoredCondition = Condition | null;

// A type (not an interface): rows of db.execute are records.
type DueRow = {
  id: string;
  schedule_cron: string;
  schedule_timezone: string;
  /** Text: the store client (shared with drizzle) leaves timestamps unparsed. */
  next_run_at: string;
  parameters: Record<string, Value>;
  condition: StoredCondition;
};

/** A running run whose worker has not renewed its lease for `leaseMs`, by the store's clock. */
export const leaseExpired = (leaseMs: number) =>
  or(isNull(runs.heartbeatAt), lt(runs.heartbeatAt, rawSql`clock_timestamp() - ${Math.max(0, Math.floor(leaseMs))} * interval '1 millisecond'`));

/** Claiming due reports, in the caller's unit of work (the runs domain's ScheduleClaims). */
export function createScheduleClaims(db: Tx): ScheduleClaims {
  return {
    async lockDue(now: Date, limit: number) {
      const due = await db.execute<DueRow>(rawSql`
        select id, schedule_cron, schedule_timezone, next_run_at, parameters, condition
          from reports
         where next_run_at is not null and not paused and next_run_at <= ${now.toISOString()}::timestamptz
         order by next_run_at
         limit ${limit}
           for update skip locked`) as unknown as DueRow[];
      return due.map((r) => ({
        id: r.id, schedule: { cron: r.schedule_cron, timezone: r.schedule_timezone }, nextRunAt: new Date(r.next_run_at),
        parameters: r.parameters, condition: r.condition,
      }));
    },

    async createRuns(planned: PlannedRun[], now: Date) {
      if (planned.length === 0) return [];
      const inserted = await db.execute<{ id: string; report_id: string; slot: string }>(rawSql`
        insert into runs (id, report_id, trigger, status, deliver, slot, parameters, condition, created_at, updated_at)
        select v.id, v.report_id, 'schedule', ${QUEUED}, true, v.slot, v.parameters, v.condition, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
          from jsonb_to_recordset(${JSON.stringify(planned.map((p) => ({
            id: p.runId, report_id: p.reportId, slot: p.slot.toISOString(), parameters: p.parameters, condition: p.condition,
          })))}::jsonb) as v(id uuid, report_id uuid, slot timestamptz, parameters jsonb, condition jsonb)
        on conflict (report_id, slot) do nothing
        returning id, report_id, slot`) as unknown as Array<{ id: string; report_id: string; slot: string }>;
      const made = new Set(inserted.map((r) => r.id));
      await db.execute(rawSql`
        update reports r
           set next_run_at = v.next,
               last_run_id = case when v.made then v.run_id else r.last_run_id end
          from jsonb_to_recordset(${JSON.stringify(planned.map((p) => ({
            id: p.reportId, next: p.next?.toISOString() ?? null, run_id: p.runId, made: made.has(p.runId),
          })))}::jsonb) as v(id uuid, next timestamptz, run_id uuid, made boolean)
         where r.id = v.id`);
      const nextOf = new Map(planned.map((p) => [p.runId, p.next]));
      return inserted.map((r) => ({ runId: r.id, reportId: r.report_id, slot: new Date(r.slot), next: nextOf.get(r.id) ?? null }));
    },
  };
}

/** The sweep's reads: the scheduling store but markLost, which the composition root binds to the unit of work (endLostRun). */
export function createSchedulingRepo(db: Db): Omit<SchedulingStore, 'markLost'> {
  return {
    async unfinishedBefore(before: Date, limit: number, after: { createdAt: Date; id: string } | undefined, leaseMs: number) {
      const from = after ? or(gt(runs.createdAt, after.createdAt), and(eq(runs.createdAt, after.createdAt), gt(runs.id, after.id))) : undefined;
      const pending = and(eq(runs.status, 'pending'), lt(runs.createdAt, before));
      // A delivering run is held by its attempts' jobs, not a worker's lease.
      const leaseOver = and(eq(runs.status, 'running'), isNull(runs.deliveringSince), leaseExpired(leaseMs));
      return db.select({
        id: runs.id, reportId: runs.reportId, status: runs.status, trigger: runs.trigger, createdAt: runs.createdAt, attempts: runs.attempts,
      }).from(runs)
        .where(and(runLeaves('lose'), or(pending, leaseOver), from))
        .orderBy(asc(runs.createdAt), asc(runs.id)).limit(limit);
    },
  };
}
