/** The run engine's store operations (the runs domain's RunEngineStore). */
import { and, desc, eq, isNull, lt, ne, or, sql as rawSql } from 'drizzle-orm';
import { connections, deliveries, queries, queryVersions, reports, runs, users, type StoredRunStep } from '../schema.js';
import type { Sql, Tx } from '../client.js';
import { columnsMapper, eventRows, type EventRow, runRecordOf, runRowOf, type RunRecordRow } from './runs-repo.js';
import { CONNECTION_COLUMNS, type ConnectionRow } from './connections-repo.js';
import { leaseExpired } from './scheduling-repo.js';
import type { RunEngineStore, RunOutcome, RunProgress, RunSource } from '../../../domain/runs/engine-ports.js';
import type { RunStep } from '../../../domain/runs/model.js';
import type { ChangeEvent } from '../../../domain/events/model.js';
import type { PlannedAttempt } from '../../../domain/channels/ports.js';
import type { ConnectionRecord } from '../../../domain/connections/model.js';
import { ATTEMPT_WRITES, RUN_WRITES, runLeaves } from './status-writes.js';
import { batchRows, inPlaces, numbered, statementBatches } from '../statement-batches.js';

const connectionRowOf = columnsMapper<ConnectionRow>(CONNECTION_COLUMNS);
/** The connection's row (`c`) as jsonb, without its schema snapshot (connections-repo.ts CONNECTION_COLUMNS). */
const CONNECTION_JSON = `jsonb_build_object(${Object.values(CONNECTION_COLUMNS).map((c) => `'${c.name}', c."${c.name}"`).join(', ')})`;


/** A jsonb value as the driver gave it (text, or already parsed). */
const jsonOf = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
const quoted = (list: readonly string[]) => list.map((s) => `'${s}'`).join(', ');
/**
 * A batch's rows in the order of their ids, the order the statement visits (and locks) its runs,
 * so that two batches that share runs lock them in one order and never wait for each other in a
 * cycle; `n` keeps each call's place, which orders the events and maps the answers back.
 */
const byId = <T extends { id: string }>(items: T[]): T[] => items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
/**
 * How a batch finds its runs: each by its id in runs_pkey, as a statement of one run does,
 * whatever the statistics said when its plan was made. Its rows are planned as one (batchRows),
 * and the status is compared as an expression of the column, which is no index's key and proves
 * no partial index's predicate: planned while few runs were unfinished, `r.status in (…)` read
 * every pending run through runs_unfinished_idx (10,000 pending: 7.9 ms a claim against 0.07).
 */
const statusIn = (alias: string, statuses: readonly string[]) => `(${alias}.status || '') in (${quoted(statuses)})`;
/** The claim's event, as runUpdated builds it from the run taken (`t`). */
export const RUN_UPDATED_DATA = `jsonb_build_object('id', t.id, 'report_id', t.report_id, 'status', t.status, 'trigger', t.trigger)
  || case when t.finished_at is null then '{}'::jsonb else jsonb_build_object('finished_at', to_char(t.finished_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) end
  || case when t.error_code is null then '{}'::jsonb else jsonb_build_object('error_code', t.error_code) end`;
/**
 * $1 the claims (jsonb text: an array of { id, now, steps, n }, no id twice): each run taken, its
 * run.updated event written (in the claims' order), and what it runs read, one statement.
 */
export const CLAIM_SQL = `with x as (${batchRows('id uuid, now timestamptz, steps jsonb, n int')}),
  t as (
    update runs r set status = 'running', started_at = coalesce(r.started_at, x.now), attempts = r.attempts + 1,
      steps = x.steps, updated_at = x.now, heartbeat_at = clock_timestamp(),
      row_count = null, columns = null, sample = null, condition_met = null, result_key = null, result_bytes = null, result_hash = null
    from x
    where r.id = x.id and ${statusIn('r', RUN_WRITES.start.from)} and r.delivering_since is null
    returning r.*, x.n as x_n),
  announced as (insert into events (type, data) select 'run.updated', ${RUN_UPDATED_DATA} from t order by t.x_n)
  select t.*, r.id as r_id, r.query_version as r_pinned, q.sql as q_sql, q.parameters as q_parameters, q.current_version as q_version,
    v.sql as v_sql, v.parameters as v_parameters, case when c.id is null then null else ${CONNECTION_JSON} end as c_row,
    exists (select 1 from deliveries d where d.report_id = t.report_id) as has_deliveries
  from t left join reports r on r.id = t.report_id
    left join queries q on q.id = r.query_id
    left join query_versions v on v.query_id = r.query_id and v.number = r.query_version
    left join connections c on c.id = case when r.query_version is not null then v.connection_id else q.connection_id end`;
/** A progress column from `src` (the progress, jsonb): left as it is when the key is absent. */
const fromProgress = (src: string, column: string, key: string, cast: string) =>
  `${column} = case when ${src} ? '${key}' then ${cast === 'jsonb' ? `nullif(${src} -> '${key}', 'null'::jsonb)` : `(${src} ->> '${key}')::${cast}`} else ${column} end`;
/** The progress columns from `src` (columnsOf as jsonb); the steps always. */
const progressColumns = (src: string) => `steps = ${src} -> 'steps', ${[
  fromProgress(src, 'query_version', 'queryVersion', 'int'), fromProgress(src, 'row_count', 'rowCount', 'int'), fromProgress(src, 'columns', 'columns', 'jsonb'),
  fromProgress(src, 'sample', 'sample', 'jsonb'), fromProgress(src, 'condition_met', 'conditionMet', 'boolean'), fromProgress(src, 'result_key', 'resultKey', 'text'),
  fromProgress(src, 'result_bytes', 'resultBytes', 'bigint'), fromProgress(src, 'result_hash', 'resultHash', 'text'),
].join(', ')}`;
/** The result file kept in the store (parameter `n`, bytea or null), written beside the run taken (`t`). */
const keptResult = (n: number) => `kept as (insert into run_results (run_id, bytes) select t.id, $${n}::bytea from t where $${n}::bytea is not null
    on conflict (run_id) do update set bytes = excluded.bytes)`;
/**
 * $1 the ends (jsonb text: an array of { id, attempt, progress, status, finished_at, error_code,
 * error_message, events, kept, n }, no id twice; `kept` the result file kept in the store as
 * base64, or null): each run's attempt ended, its events written (in the ends' order, then each
 * end's own) and its kept result, only for the runs ended here; their ids.
 */
export const END_SQL = `with x as (${batchRows('id uuid, attempt int, progress jsonb, status text, finished_at timestamptz, error_code text, error_message text, events jsonb, kept text, n int')}),
  t as (
    update runs r set ${progressColumns('x.progress')},
      status = x.status, finished_at = x.finished_at, updated_at = x.finished_at, error_code = x.error_code, error_message = x.error_message
    from x
    where r.id = x.id and ${statusIn('r', RUN_WRITES.finish.from)} and r.attempts = x.attempt
    returning r.id, x.n, x.events, x.kept),
  announced as (insert into events (type, data, user_id)
    select e.type, e.data, e.user_id from t
      cross join lateral rows from (jsonb_to_recordset(t.events) as (type text, data jsonb, user_id uuid)) with ordinality as e(type, data, user_id, k)
    order by t.n, e.k),
  kept as (insert into run_results (run_id, bytes) select t.id, decode(t.kept, 'base64') from t where t.kept is not null
    on conflict (run_id) do update set bytes = excluded.bytes)
  select t.id, t.n from t`;
/**
 * $1 progress (jsonb text), $2 now, $3 run id, $4 attempt, $5 the attempts (jsonb text: id,
 * delivery_id, channel_id, channel_name, channel_type, position, job_id), $6 the result file kept
 * in the store (bytea, or null): the run's progress and delivering mark, its attempts planned
 * (pending), its kept result and the run.updated of the record after, one statement.
 */
const HAND_OVER_SQL = `with t as (
    update runs set ${progressColumns('$1::jsonb')},
      delivering_since = $2::timestamptz, updated_at = $2::timestamptz, heartbeat_at = clock_timestamp()
    where id = $3::uuid and status = 'running' and attempts = $4::int and delivering_since is null
    returning id, report_id, status, trigger, finished_at, error_code),
  planned as (
    insert into delivery_attempts (id, run_id, delivery_id, channel_id, channel_name, channel_type, position, status, job_id, created_at, updated_at)
    select a.id, t.id, a.delivery_id, a.channel_id, a.channel_name, a.channel_type, a.position, '${ATTEMPT_WRITES.plan.to[0]}', a.job_id,
      $2::timestamptz, $2::timestamptz
    from t cross join jsonb_to_recordset($5::jsonb)
      as a(id uuid, delivery_id uuid, channel_id uuid, channel_name text, channel_type text, position int, job_id text)
    on conflict (run_id, delivery_id) do nothing),
  announced as (insert into events (type, data) select 'run.updated', ${RUN_UPDATED_DATA} from t),
  ${keptResult(6)}
  select t.id from t`;
/** A result kept in the store is written by the run's end or hand-over statement only. */
const keptByEndOnly = (p: RunProgress) => {
  if (p.resultInline) throw new Error('a result kept in the store is written by end or handOver, not by this write');
};
type RunQuerySourceParameters = NonNullable<RunSource['query']>['parameters'];

/** A claim as the claim statement takes it. */
interface Claim { id: string; now: string; steps: StoredRunStep[] }
/** An end as the end statement takes it. */
interface End {
  id: string; attempt: number; progress: ReturnType<typeof columnsOf>; status: string; finished_at: string; error_code: string | null; error_message: string | null;
  events: EventRow[]; kept: string | null;
}

const storedSteps = (steps: RunStep[]): StoredRunStep[] => steps.map((s) => ({
  name: s.name, status: s.status, startedAt: s.startedAt.toISOString(), finishedAt: s.finishedAt?.toISOString() ?? null,
  error: s.error, ...(s.detail ? { detail: s.detail } : {}),
}));

const columnsOf = (p: RunProgress) => ({
  steps: storedSteps(p.steps),
  ...(p.queryVersion !== undefined ? { queryVersion: p.queryVersion } : {}),
  ...(p.rowCount !== undefined ? { rowCount: p.rowCount } : {}),
  ...(p.columns !== undefined ? { columns: p.columns } : {}),
  ...(p.sample !== undefined ? { sample: p.sample } : {}),
  ...(p.conditionMet !== undefined ? { conditionMet: p.conditionMet } : {}),
  ...(p.resultKey !== undefined ? { resultKey: p.resultKey } : {}),
  ...(p.resultBytes !== undefined ? { resultBytes: p.resultBytes } : {}),
  ...(p.resultHash !== undefined ? { resultHash: p.resultHash } : {}),
});


/**
 * `client` is the store's postgres.js client, for the worker's two prepared single statements
 * (claim and end); without it (a unit of work's repositories) they are not available.
 */
export function createRunEngineRepo(db: Tx, client?: Sql): RunEngineStore {
  const clientOf = (): Sql => {
    if (!client) throw new Error('claim and end are single statements on the store, outside any unit of work');
    return client;
  };
  /** Claims and ends, each kind one statement for the calls that meet (made on first use: a unit of work's repositories have none). */
  let claimBatches: ((claim: Claim) => Promise<Record<string, unknown> | undefined>) | undefined;
  const claims = () => (claimBatches ??= statementBatches<Claim, Record<string, unknown> | undefined>({
    keyOf: (c) => c.id,
    send: async (batch) => {
      const rows = await clientOf().unsafe<Array<Record<string, unknown>>>(CLAIM_SQL, [JSON.stringify(byId(numbered(batch)))], { prepare: true });
      return inPlaces(rows, batch.length, (r) => r.x_n as number);
    },
  }));
  let endBatches: ((end: End) => Promise<boolean>) | undefined;
  const ends = () => (endBatches ??= statementBatches<End, boolean>({
    keyOf: (e) => e.id,
    send: async (batch) => {
      const rows = await clientOf().unsafe<Array<{ n: number }>>(END_SQL, [JSON.stringify(byId(numbered(batch)))], { prepare: true });
      return inPlaces(rows, batch.length, (r) => r.n).map((row) => row !== undefined);
    },
  }));
  return {
    async start(runId: string, now: Date, steps: RunStep[] = []): Promise<RunRecordRow | undefined> {
      const [row] = await db.update(runs).set({
        status: 'running', startedAt: rawSql`coalesce(${runs.startedAt}, ${now.toISOString()}::timestamptz)`,
        attempts: rawSql`${runs.attempts} + 1`, steps: storedSteps(steps), updatedAt: now, heartbeatAt: rawSql`clock_timestamp()`,
        rowCount: null, columns: null, sample: null, conditionMet: null, resultKey: null, resultBytes: null, resultHash: null,
      }).where(and(eq(runs.id, runId), runLeaves('start'), isNull(runs.deliveringSince))).returning();
      return row ? runRecordOf(row) : undefined;
    },

    /**
     * Takes the run (as `start`), reads what it runs (as `source`) and writes its run.updated
     * event (the outbox row, as the domain's runUpdated builds it: the taken run's id, report_id,
     * status and trigger, and its error code if it has one) in one statement, so the change and
     * its event commit together, in one round trip. The event is numbered by the relays. Claims
     * made while one is on its way go out together as one statement (statement-batches.ts): a
     * prepared statement of the store's client (never inside a unit of work); an unnamed one
     * when the client has prepare false (SVC_DATABASE_PREPARE, which postgres.js puts first).
     */
    async claim(runId: string, now: Date, steps: RunStep[] = []) {
      const raw = await claims()({ id: runId, now: now.toISOString(), steps: storedSteps(steps) });
      if (!raw) return undefined;
      const run = runRecordOf(runRowOf(raw));
      if (raw.r_id === null) return { run, source: undefined };
      const pinned = raw.r_pinned as number | null;
      const query = pinned !== null
        ? (raw.v_sql !== null ? { sql: raw.v_sql as string, parameters: jsonOf(raw.v_parameters) as RunQuerySourceParameters, version: pinned } : undefined)
        : (raw.q_sql !== null ? { sql: raw.q_sql as string, parameters: jsonOf(raw.q_parameters) as RunQuerySourceParameters, version: raw.q_version as number } : undefined);
      const connection = raw.c_row ? connectionRowOf(jsonOf(raw.c_row) as Record<string, unknown>) as ConnectionRecord : undefined;
      const source: RunSource = { query, connection, hasDeliveries: raw.has_deliveries === true };
      return { run, source };
    },

    /**
     * Ends the run's attempt (as `finish`) and writes its events in the same statement (the
     * outbox rows commit with the change, only when the run was ended here); whether it was ended
     * here. Only the run's id comes back: the caller knows the record after (a whole run row, its
     * steps, columns and sample parsed on every run, was read for nothing). Ends made while one is
     * on its way go out together as one statement, as claims do: the progress is one jsonb value
     * per end, whose absent keys leave their columns as they are.
     */
    async end(runId: string, attempt: number, outcome: RunOutcome, list: readonly ChangeEvent[]) {
      return ends()({
        id: runId, attempt, progress: columnsOf(outcome), status: outcome.status, finished_at: outcome.finishedAt.toISOString(),
        error_code: outcome.error?.code ?? null, error_message: outcome.error?.message ?? null,
        events: eventRows(list),
        kept: outcome.resultInline ? outcome.resultInline.toString('base64') : null,
      });
    },

    /**
     * The run's deliveries handed over in one statement (its progress and delivering mark, its
     * attempts planned and its run.updated event): whether it was handed over here (false when the
     * run is no longer running in attempt `attempt`). A prepared statement of
     * the store's client, like claim and end; the event is numbered by the relays.
     */
    async handOver(runId: string, attempt: number, progress: RunProgress, now: Date, attempts: readonly PlannedAttempt[]) {
      const rows = await clientOf().unsafe<Array<Record<string, unknown>>>(HAND_OVER_SQL, [
        JSON.stringify(columnsOf(progress)), now.toISOString(), runId, attempt,
        JSON.stringify(attempts.map((a) => ({
          id: a.id, delivery_id: a.deliveryId, channel_id: a.channelId, channel_name: a.channelName, channel_type: a.channelType, position: a.position, job_id: a.jobId,
        }))),
        progress.resultInline ?? null,
      ], { prepare: true });
      return rows.length > 0;
    },

    /**
     * In one statement: the SQL the report runs (its pinned query version or its query's current
     * one), the connection it runs on, and whether the report has deliveries. Undefined when the
     * report is gone; sql undefined when its query (version) is, connection undefined when that is.
     */
    async source(reportId: string) {
      const pinned = rawSql`${reports.queryVersion} is not null`;
      const [r] = await db.select({
        pinned: reports.queryVersion,
        currentSql: queries.sql, currentParameters: queries.parameters, currentVersion: queries.currentVersion,
        pinnedSql: queryVersions.sql, pinnedParameters: queryVersions.parameters,
        connection: CONNECTION_COLUMNS,
        deliveries: rawSql<number>`(select count(*)::int from ${deliveries} where ${deliveries.reportId} = ${reports.id})`,
      }).from(reports)
        .leftJoin(queries, eq(queries.id, reports.queryId))
        .leftJoin(queryVersions, and(eq(queryVersions.queryId, reports.queryId), eq(queryVersions.number, reports.queryVersion)))
        .leftJoin(connections, eq(connections.id, rawSql`case when ${pinned} then ${queryVersions.connectionId} else ${queries.connectionId} end`))
        .where(eq(reports.id, reportId));
      if (!r) return undefined;
      const query = r.pinned !== null
        ? (r.pinnedSql !== null ? { sql: r.pinnedSql, parameters: r.pinnedParameters!, version: r.pinned } : undefined)
        : (r.currentSql !== null ? { sql: r.currentSql, parameters: r.currentParameters!, version: r.currentVersion! } : undefined);
      return { query, connection: r.connection ?? undefined, hasDeliveries: Number(r.deliveries) > 0 };
    },

    async saveProgress(runId: string, attempt: number, progress: RunProgress, now: Date): Promise<boolean> {
      keptByEndOnly(progress);
      const rows = await db.update(runs).set({ ...columnsOf(progress), updatedAt: now, heartbeatAt: rawSql`clock_timestamp()` })
        .where(and(eq(runs.id, runId), eq(runs.status, 'running'), eq(runs.attempts, attempt))).returning({ id: runs.id });
      return rows.length > 0;
    },

    async finish(runId: string, attempt: number, outcome: RunOutcome): Promise<RunRecordRow | undefined> {
      keptByEndOnly(outcome);
      const [row] = await db.update(runs).set({
        ...columnsOf(outcome), status: outcome.status, finishedAt: outcome.finishedAt, updatedAt: outcome.finishedAt,
        errorCode: outcome.error?.code ?? null, errorMessage: outcome.error?.message ?? null,
      }).where(and(eq(runs.id, runId), runLeaves('finish'), eq(runs.attempts, attempt))).returning();
      return row ? runRecordOf(row) : undefined;
    },

    async previousSuccessHash(reportId: string, beforeRunId: string): Promise<string | undefined> {
      const [row] = await db.select({ hash: runs.resultHash }).from(runs)
        .where(and(eq(runs.reportId, reportId), eq(runs.status, 'success'), ne(runs.id, beforeRunId), lt(runs.id, beforeRunId)))
        .orderBy(desc(runs.id)).limit(1);
      return row?.hash ?? undefined;
    },

    /**
     * The worker holding this attempt is alive: renews the run's lease (heartbeat_at, the store's
     * time) and answers whether it should stop (cancel requested, or the run is no longer this
     * attempt's: ended, taken again, or gone).
     */
    async heartbeat(runId: string, attempt: number): Promise<boolean> {
      const [row] = await db.update(runs).set({ heartbeatAt: rawSql`clock_timestamp()` })
        .where(and(eq(runs.id, runId), eq(runs.status, 'running'), eq(runs.attempts, attempt)))
        .returning({ cancel: runs.cancelRequestedAt });
      return !row || row.cancel !== null;
    },

    async runContext(reportId: string, createdBy: string | null) {
      const [r] = await db.select({ id: reports.id, title: reports.title, description: reports.description, queryId: queries.id, queryName: queries.name })
        .from(reports).innerJoin(queries, eq(queries.id, reports.queryId)).where(eq(reports.id, reportId));
      if (!r) return undefined;
      const [caller] = createdBy ? await db.select({ email: users.email }).from(users).where(eq(users.id, createdBy)) : [];
      return { report: { id: r.id, title: r.title, description: r.description }, query: { id: r.queryId, name: r.queryName }, callerEmail: caller?.email ?? null };
    },

    async exists(runId: string): Promise<boolean> {
      const [row] = await db.select({ id: runs.id }).from(runs).where(eq(runs.id, runId));
      return row !== undefined;
    },

    /**
     * Ends a run lost for good: its job failed for good (the worker's record of it) or its
     * workers were lost too often (the scheduler's sweep, with `leaseMs`: only a pending run or
     * one whose lease ran out). The domain's endLostRun pairs it with failLostAttempts in one
     * unit of work.
     */
    async markLost(runId: string, error: { code: string; message: string }, now: Date, leaseMs?: number): Promise<RunRecordRow | undefined> {
      // A step the lost worker left running ends failed with the run's error.
      const closedSteps = rawSql`(select coalesce(jsonb_agg(case when s->>'status' = 'running'
        then s || jsonb_build_object('status', 'failed', 'finishedAt', ${now.toISOString()}::text, 'error', ${JSON.stringify(error)}::jsonb)
        else s end order by n), '[]'::jsonb) from jsonb_array_elements(${runs.steps}) with ordinality as t(s, n))`;
      const [row] = await db.update(runs).set({
        status: 'failed', errorCode: error.code, errorMessage: error.message, finishedAt: now, updatedAt: now, steps: closedSteps,
      })
        .where(and(eq(runs.id, runId), runLeaves('lose'), isNull(runs.deliveringSince),
          leaseMs === undefined ? undefined : or(eq(runs.status, 'pending'), leaseExpired(leaseMs)))).returning();
      return row ? runRecordOf(row) : undefined;
    },

  };
}
