/**
 * Runs in the store, for the runs API (the runs domain's RunsRepo): reading, queuing manual and
 * test runs (with Idempotency-Keys) and cancelling, in the caller's unit of work. Records are
 * plain objects that fit the domain's RunRecord.
 */
import type { ChangeEvent } from '../../../domain/events/model.js';
import { and, desc, eq, getTableColumns, isNotNull, lt, or, sql as rawSql, type Column, type SQL } from 'drizzle-orm';
import { deliveryAttempts, idempotencyKeys, reports, runs } from '../schema.js';
import { attemptOf } from './channels-repo.js';
import { inSavepoint, pgConstraint, pgErrorCode, type Sql, type Tx } from '../client.js';
import { decodeTimeCursor, toPage, type Page, type PageRequest } from '../../../core/cursor.js';
import type { RunsRepo } from '../../../domain/runs/ports.js';
import { QUEUED, RUN_WRITES, runLeaves, statusIn } from './status-writes.js';
import { batchRows, inPlaces, numbered, statementBatches } from '../statement-batches.js';

type RunRow = typeof runs.$inferSelect;

/**
 * A table's row from a raw row (the store's column names, the driver's values), as drizzle's
 * own select would map it: for the single statements below, whose CTEs drizzle's builder does
 * not express.
 */
export function rowMapper<T>(table: Parameters<typeof getTableColumns>[0]): (raw: Record<string, unknown>) => T {
  return columnsMapper<T>(getTableColumns(table));
}
/** The same for some of a table's columns (drizzle's selection object: property → column). */
export function columnsMapper<T>(selected: Record<string, Column>): (raw: Record<string, unknown>) => T {
  const columns = Object.entries(selected);
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = raw[column.name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as T;
  };
}
/** A run row from a raw statement's row (`select *` from runs, or `returning *`). */
export const runRowOf = rowMapper<RunRow>(runs);
const attemptRowOf = rowMapper<typeof deliveryAttempts.$inferSelect>(deliveryAttempts);
/**
 * $1 run id: the run's row and its attempts' rows in delivery order (AttemptsRepo.listForRun's),
 * one statement and so one snapshot.
 */
const RUN_WITH_ATTEMPTS_SQL = `select to_jsonb(r) as r_row,
    coalesce((select jsonb_agg(to_jsonb(a) order by a.position, a.created_at) from delivery_attempts a where a.run_id = r.id), '[]'::jsonb) as a_rows
  from runs r where r.id = $1::uuid`;
const jsonOf = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
/** An event as the statements that write events take it (inside their jsonb parameter). */
export interface EventRow { type: string; data: unknown; user_id: string | null }
/** Rows for the events table from the domain's events. */
export const eventRows = (list: readonly ChangeEvent[]): EventRow[] => list.map((e) => ({ type: e.type, data: e.data, user_id: e.userId ?? null }));
type Value = string | number | boolean | null;

/** A run row as the domain reads it: errors and steps as objects, times as Dates. */
export function runRecordOf(r: RunRow) {
  return {
    id: r.id,
    reportId: r.reportId,
    trigger: r.trigger,
    status: r.status,
    deliver: r.deliver,
    slot: r.slot,
    parameters: r.parameters,
    condition: r.condition ?? null,
    conditionMet: r.conditionMet,
    queryVersion: r.queryVersion,
    rowCount: r.rowCount,
    columns: r.columns ?? null,
    sample: r.sample ?? null,
    steps: r.steps.map((s) => ({
      name: s.name, status: s.status, startedAt: new Date(s.startedAt), finishedAt: s.finishedAt ? new Date(s.finishedAt) : null,
      error: s.error, ...(s.detail ? { detail: s.detail } : {}),
    })),
    error: r.errorCode ? { code: r.errorCode, message: r.errorMessage ?? '' } : null,
    resultKey: r.resultKey,
    resultBytes: r.resultBytes,
    resultHash: r.resultHash,
    attempts: r.attempts,
    createdBy: r.createdBy,
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    cancelRequestedAt: r.cancelRequestedAt,
    deliveringSince: r.deliveringSince,
  };
}

export type RunRecordRow = ReturnType<typeof runRecordOf>;

interface NewRunRow {
  id: string;
  reportId: string;
  trigger: 'manual' | 'test' | 'schedule';
  deliver: boolean;
  parameters: Record<string, Value>;
  condition: RunRow['condition'];
  createdBy: string | null;
  createdAt: Date;
}

/** The insert of a run failed because its report no longer exists (deleted after it was read). */
const reportGone = (err: unknown): boolean =>
  pgErrorCode(err) === '23503' && pgConstraint(err) === 'runs_report_id_reports_id_fk';

/**
 * Inserts the run and points its report's last run at it; undefined when the report is gone. The
 * insert is in a savepoint, so that the foreign key's refusal leaves the caller's transaction usable.
 */
async function insertRun(tx: Tx, run: NewRunRow): Promise<RunRecordRow | undefined> {
  let row: RunRow | undefined;
  try {
    [row] = await inSavepoint(tx, (sp) => sp.insert(runs).values({ ...run, status: QUEUED, updatedAt: run.createdAt }).returning());
  } catch (err) {
    if (reportGone(err)) return undefined;
    throw err;
  }
  await tx.update(reports).set({ lastRunId: run.id }).where(eq(reports.id, run.reportId));
  return runRecordOf(row!);
}

/**
 * $1 the runs to queue (jsonb text: an array of { id, report_id, trigger, deliver, created_by,
 * created_at, events, n }): each run made from its report (none when the report is gone), each
 * report's last run pointed at its newest run of the batch, and the events (in the calls' order,
 * then each call's own), in one statement. The POSTs that meet go as one (statement-batches.ts):
 * each POST updates its report's row, so POSTs to one report took turns on that row's lock, one
 * commit each. Each report is read by its id (batchRows).
 */
export const QUEUE_SQL = `with x as (${batchRows('id uuid, report_id uuid, trigger text, deliver boolean, created_by uuid, created_at timestamptz, events jsonb, n int')}),
  t as (insert into runs (id, report_id, trigger, status, deliver, parameters, condition, created_by, created_at, updated_at)
    select x.id, r.id, x.trigger, '${QUEUED}', x.deliver, r.parameters, r.condition, x.created_by, x.created_at, x.created_at
    from x join reports r on r.id = x.report_id order by x.n
    returning *),
  latest as (select distinct on (t.report_id) t.report_id, t.id from t join x on x.id = t.id order by t.report_id, x.n desc),
  pointed as (update reports set last_run_id = latest.id from latest where reports.id = latest.report_id),
  announced as (insert into events (type, data, user_id)
    select e.type, e.data, e.user_id from t join x on x.id = t.id
      cross join lateral rows from (jsonb_to_recordset(x.events) as (type text, data jsonb, user_id uuid)) with ordinality as e(type, data, user_id, k)
    order by x.n, e.k)
  select t.*, x.n as x_n from t join x on x.id = t.id`;
/** A run to queue as the queue statement takes it. */
interface Queued {
  id: string; report_id: string; trigger: string; deliver: boolean; created_by: string | null; created_at: string;
  events: EventRow[];
}

/**
 * `client` is the store's postgres.js client, for the API's prepared single statement that
 * queues a run (`queue`); without it (a unit of work's repositories) that one is not available.
 * (With SVC_DATABASE_PREPARE=false the client's `prepare: false` wins over the statement's
 * `prepare: true`: postgres.js names a statement only when both allow it.)
 */
export function createRunsRepo(db: Tx, client?: Sql): RunsRepo {
  /** The runs queued while one batch is on its way, as one statement (made on first use). */
  let queueBatches: ((run: Queued) => Promise<Record<string, unknown> | undefined>) | undefined;
  const queued = () => (queueBatches ??= statementBatches<Queued, Record<string, unknown> | undefined>({
    keyOf: (r) => r.id,
    send: async (batch) => {
      const rows = await client!.unsafe<Array<Record<string, unknown>>>(QUEUE_SQL, [JSON.stringify(numbered(batch))], { prepare: true });
      return inPlaces(rows, batch.length, (r) => r.x_n as number);
    },
  }));
  return {
    async queue(run, events) {
      if (!client) throw new Error('queue is a single statement on the store, outside any unit of work');
      let row: Record<string, unknown> | undefined;
      try {
        row = await queued()({
          id: run.id, report_id: run.reportId, trigger: run.trigger, deliver: run.deliver, created_by: run.createdBy ?? null,
          created_at: run.createdAt.toISOString(), events: eventRows(events),
        });
      } catch (err) {
        if (reportGone(err)) return undefined;
        throw err;
      }
      return row ? runRecordOf(runRowOf(row)) : undefined;
    },

    async find(id: string): Promise<RunRecordRow | undefined> {
      const [row] = await db.select().from(runs).where(eq(runs.id, id));
      return row ? runRecordOf(row) : undefined;
    },

    async findWithAttempts(id: string) {
      if (!client) throw new Error('findWithAttempts is a single statement on the store, outside any unit of work');
      const [row] = await client.unsafe<Array<Record<string, unknown>>>(RUN_WITH_ATTEMPTS_SQL, [id], { prepare: true });
      if (!row) return undefined;
      const attempts = jsonOf(row.a_rows) as Array<Record<string, unknown>>;
      return { run: runRecordOf(runRowOf(jsonOf(row.r_row) as Record<string, unknown>)), attempts: attempts.map((a) => attemptOf(attemptRowOf(a))) };
    },

    /** The report's newest finished run with a result file (delivery previews). */
    async latestResultRun(reportId: string): Promise<RunRecordRow | undefined> {
      const [row] = await db.select().from(runs)
        .where(and(eq(runs.reportId, reportId), isNotNull(runs.resultKey), isNotNull(runs.finishedAt)))
        .orderBy(desc(runs.createdAt), desc(runs.id)).limit(1);
      return row ? runRecordOf(row) : undefined;
    },

    /**
     * After a resend: a finished run that ended partial or failed by its deliveries takes the
     * status its attempts now give (all sent: success, or skipped when its condition was false;
     * some: partial). Called in the transaction that records a resend's end: the run's row is
     * locked first, so that two resends of one run finishing together take turns and the second
     * counts, in a statement begun after the first committed, both attempts sent.
     */
    async lockForSettling(runId: string): Promise<RunRecordRow | undefined> {
      const [row] = await db.select().from(runs).where(eq(runs.id, runId)).for('update');
      return row ? runRecordOf(row) : undefined;
    },

    async settleDeliveries(runId: string, now: Date): Promise<RunRecordRow | undefined> {
      await db.execute(rawSql`select 1 from runs where id = ${runId} for update`);
      const [row] = await db.execute<{ id: string }>(rawSql`
        with tally as (
          select count(*) filter (where status = 'sent') as sent,
                 count(*) filter (where status in ('failed', 'queued', 'sending')) as open
          from delivery_attempts where run_id = ${runId} and status <> 'preview'
        )
        update runs r set
          status = case when t.open = 0 then (case when r.condition_met = false then 'skipped' else 'success' end) else 'partial' end,
          error_code = null, error_message = null, updated_at = ${now.toISOString()}::timestamptz
        from tally t
        where r.id = ${runId} and t.sent > 0
          and ${statusIn(rawSql`r.status`, RUN_WRITES.settle.from)} and (r.status <> 'failed' or r.error_code = 'delivery.all_failed')
          and r.status <> (case when t.open = 0 then (case when r.condition_met = false then 'skipped' else 'success' end) else 'partial' end)
        returning r.id`) as unknown as Array<{ id: string }>;
      if (!row) return undefined;
      const [after] = await db.select().from(runs).where(eq(runs.id, runId));
      return after ? runRecordOf(after) : undefined;
    },

    async list(filter: { status?: RunRow['status'] | undefined; reportId?: string | undefined; trigger?: RunRow['trigger'] | undefined },
      q: PageRequest): Promise<Page<RunRecordRow>> {
      const where: SQL[] = [];
      if (filter.status) where.push(eq(runs.status, filter.status));
      if (filter.reportId) where.push(eq(runs.reportId, filter.reportId));
      if (filter.trigger) where.push(eq(runs.trigger, filter.trigger));
      if (q.cursor) {
        const { at, id } = decodeTimeCursor(q.cursor);
        const when = new Date(at);
        where.push(or(lt(runs.createdAt, when), and(eq(runs.createdAt, when), lt(runs.id, id)))!);
      }
      const rows = await db.select().from(runs).where(and(...where))
        .orderBy(desc(runs.createdAt), desc(runs.id)).limit(q.limit + 1);
      return toPage(rows, q.limit, (r) => [r.createdAt.toISOString(), r.id], runRecordOf);
    },

    async runSource(reportId: string) {
      const [row] = await db.select({ id: reports.id, parameters: reports.parameters, condition: reports.condition })
        .from(reports).where(eq(reports.id, reportId));
      return row ? { id: row.id, parameters: row.parameters, condition: row.condition ?? null } : undefined;
    },

    /** Inserts the run; undefined when its report is gone (deleted since it was read). */
    insert: (run: NewRunRow): Promise<RunRecordRow | undefined> => insertRun(db, run),

    async insertIdempotent(run: NewRunRow, claim: { userId: string; operation: string; key: string; requestHash: string; notBefore: Date }):
      Promise<{ kind: 'created' | 'repeated'; run: RunRecordRow } | { kind: 'mismatch' } | { kind: 'gone' }> {
      const keyOf = and(eq(idempotencyKeys.userId, claim.userId), eq(idempotencyKeys.operation, claim.operation), eq(idempotencyKeys.key, claim.key));
      // An expired record frees its key.
      await db.delete(idempotencyKeys).where(and(keyOf, lt(idempotencyKeys.createdAt, claim.notBefore)));
      // Twice at most: a key freed between the claim and the read (its record deleted, with its
      // run and report, by a transaction that committed in between) is claimed afresh.
      for (let round = 0; round < 2; round += 1) {
        // Concurrent repeats wait here on the key until the first one commits, then see its row.
        const claimed = await db.insert(idempotencyKeys).values({
          userId: claim.userId, operation: claim.operation, key: claim.key, requestHash: claim.requestHash, createdAt: run.createdAt,
        }).onConflictDoNothing().returning({ key: idempotencyKeys.key });
        if (claimed.length > 0) {
          const created = await insertRun(db, run);
          if (!created) return { kind: 'gone' as const };
          await db.update(idempotencyKeys).set({ runId: created.id }).where(keyOf);
          return { kind: 'created' as const, run: created };
        }
        const [held] = await db.select().from(idempotencyKeys).where(keyOf);
        if (!held) continue;
        if (held.requestHash !== claim.requestHash) return { kind: 'mismatch' as const };
        // The same request: its first run, unless that run is gone. A run is deleted only with
        // its report (the record goes with it; a deletion committed between the two reads
        // leaves the record seen and the run not), so the report is gone.
        const [first] = held.runId ? await db.select().from(runs).where(eq(runs.id, held.runId)) : [];
        return first ? { kind: 'repeated' as const, run: runRecordOf(first) } : { kind: 'gone' as const };
      }
      return { kind: 'gone' as const };
    },

    async cancelPending(id: string, now: Date): Promise<{ run: RunRecordRow; cancelled: boolean } | undefined> {
      const [row] = await db.update(runs).set({
        status: 'cancelled', finishedAt: now, cancelRequestedAt: now, updatedAt: now,
        errorCode: 'run.cancelled', errorMessage: 'Cancelled before it started',
      }).where(and(eq(runs.id, id), runLeaves('cancelPending'))).returning();
      if (row) return { run: runRecordOf(row), cancelled: true };
      const [current] = await db.select().from(runs).where(eq(runs.id, id));
      return current ? { run: runRecordOf(current), cancelled: false } : undefined;
    },

    /** Deletes Idempotency-Key records older than `before` (they answer nothing any more). */
    async purgeIdempotencyKeys(before: Date): Promise<number> {
      const rows = await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before)).returning({ key: idempotencyKeys.key });
      return rows.length;
    },

    async requestCancel(id: string, now: Date): Promise<{ run: RunRecordRow; requested: boolean } | undefined> {
      const [row] = await db.update(runs).set({ cancelRequestedAt: rawSql`coalesce(${runs.cancelRequestedAt}, ${now.toISOString()}::timestamptz)`, updatedAt: now })
        .where(and(eq(runs.id, id), eq(runs.status, 'running'))).returning();
      if (row) return { run: runRecordOf(row), requested: true };
      const [current] = await db.select().from(runs).where(eq(runs.id, id));
      return current ? { run: runRecordOf(current), requested: false } : undefined;
    },
  };
}
