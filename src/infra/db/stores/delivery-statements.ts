/**
 * The delivery worker's two store round trips (the deliveries feature's SendingContextSource and
 * AttemptEnds), as prepared statements of the store's client with fixed text, like the run
 * engine's claim and end (run-engine-repo.ts): no statement built per delivery.
 *
 * - take: the attempt taken (as AttemptsRepo.take) with everything its send reads (the run, its
 *   report and query, who queued it, the delivery and its channel with its sealed secrets), one
 *   statement;
 * - end: the attempt's end with its history, the channel's health and last error, and, when it is
 *   the run's last open attempt, the run's end (status, error, its delivery step) with its
 *   run.updated and report.updated events (and channel.health when the health changed), written
 *   as settle-run.ts's deliveredOutcome does. One round trip: BEGIN, the run's row locked, the end
 *   (a statement begun after the lock was granted, so it sees every other attempt's end that
 *   committed before: the last one always settles the run) and COMMIT go out in one write on a
 *   reserved connection. A run that is not simply delivering (ended meanwhile, a cancellation
 *   asked for) is left untouched and the caller records the end in its unit of work instead.
 */
import { channels, deliveries, deliveryAttempts } from '../schema.js';
import type { Sql } from '../client.js';
import { rowMapper, runRecordOf, runRowOf } from './runs-repo.js';
import { RUN_UPDATED_DATA } from './run-engine-repo.js';
import { attemptOf, channelOf, deliveryOf } from './channels-repo.js';
import { ATTEMPT_WRITES, RUN_WRITES } from './status-writes.js';
import type { AttemptEnd, DeliveriesRepo } from '../../../domain/channels/ports.js';
import type { ChannelHealth } from '../../../domain/channels/model.js';
import type { AttemptEnds, EndRecorded, SendingContextSource } from '../../../domain/deliveries/ports.js';

const attemptRowOf = rowMapper<typeof deliveryAttempts.$inferSelect>(deliveryAttempts);
const deliveryRowOf = rowMapper<typeof deliveries.$inferSelect>(deliveries);
const channelRowOf = rowMapper<typeof channels.$inferSelect>(channels);
const jsonOf = (value: unknown): Record<string, unknown> => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
const quoted = (list: readonly string[]) => list.map((s) => `'${s}'`).join(', ');
const OPEN = quoted(['pending', 'sending', 'queued']);

/** $1 attempt id, $2 now, $3 job id, $4 delivery id (or null). */
const TAKE_SQL = `update delivery_attempts x set status = 'sending', started_at = $2::timestamptz, next_retry_at = null, updated_at = $2::timestamptz
  from runs r join reports p on p.id = r.report_id join queries q on q.id = p.query_id
    left join users u on u.id = r.created_by
    left join deliveries d on d.id = $4::uuid
    left join channels c on c.id = d.channel_id
  where x.id = $1::uuid and r.id = x.run_id and x.job_id = $3::text
    and (x.status in (${quoted(ATTEMPT_WRITES.take.from)}) or (x.status in (${quoted(ATTEMPT_WRITES.retry.from)}) and x.next_retry_at is not null))
  returning to_jsonb(x) as a_row, to_jsonb(r) as r_row, p.title as report_title, p.description as report_description, q.id as query_id,
    q.name as query_name, u.email as caller_email, to_jsonb(d) as d_row, to_jsonb(c) as c_row`;

/** Locks the run's row ($1) for the end that follows in the same transaction. */
const LOCK_SQL = 'select 1 from runs where id = $1::uuid for update';

/**
 * $1 attempt id, $2 run id, $3 status, $4 sends, $5 finished at (ISO text), $6 status code,
 * $7 peer message id, $8 detail, $9 error (jsonb), $10 preview (jsonb), $11 history entries
 * (jsonb), $12 next retry at, $13 retries, $14 job id, $15 the channel's last error (jsonb), $16 finished at
 * again (as text: the steps' JSON holds it as the domain writes it).
 * The outcome when it is the run's last open attempt is settle-run.ts's deliveredOutcome.
 */
const END_SQL = `with r as (select * from runs where id = $2::uuid),
  usual as (select 1 from r where r.status = 'running' and r.delivering_since is not null and r.cancel_requested_at is null),
  f as (
    update delivery_attempts set status = $3::text, sends = sends + $4::int, finished_at = $5::timestamptz, status_code = $6::int,
      peer_message_id = $7::text, detail = $8::text, error = $9::jsonb, preview = $10::jsonb, history = history || $11::jsonb,
      updated_at = $5::timestamptz, next_retry_at = $12::timestamptz, retries = coalesce($13::int, retries), job_id = coalesce($14::text, job_id)
    where id = $1::uuid and status in (${quoted(ATTEMPT_WRITES.finish.from)}) and exists (select 1 from usual)
    returning channel_id),
  t as (
    select count(*) filter (where a.status in (${OPEN}))::int as open,
      (count(*) filter (where a.status = 'sent') + ($3::text = 'sent')::int)::int as sent,
      (count(*) filter (where a.status = 'failed') + ($3::text = 'failed')::int)::int as failed,
      (count(*) filter (where a.status = 'preview') + ($3::text = 'preview')::int)::int as previewed
    from delivery_attempts a where a.run_id = $2::uuid and a.id <> $1::uuid and exists (select 1 from f)),
  prev as (select c.id, c.health from channels c join f on f.channel_id = c.id where $3::text in ('sent', 'failed') for update of c),
  h as (
    update channels c set health = case when $3::text = 'sent' then 'healthy' else 'failing' end, last_attempt_at = $5::timestamptz,
      last_error = coalesce($15::jsonb, c.last_error)
    from prev where c.id = prev.id and (c.last_attempt_at is null or c.last_attempt_at <= $5::timestamptz)
    returning c.id, prev.health as before, c.health as after),
  o as (
    select case when t.failed > 0 and t.sent > 0 then 'partial' when t.failed > 0 then 'failed'
        when r.condition_met = false then 'skipped' else 'success' end as status,
      case when t.failed > 0 then 'failed' else 'success' end as step_status,
      case when t.failed > 0 and t.sent = 0
        then jsonb_build_object('code', 'delivery.all_failed', 'message', format('Every delivery failed (%s); each delivery attempt says why', t.failed)) end as run_error,
      case when t.failed > 0 and t.sent > 0
          then jsonb_build_object('code', 'delivery.partial', 'message', format('%s of %s deliveries failed', t.failed, t.sent + t.failed))
        when t.failed > 0
          then jsonb_build_object('code', 'delivery.all_failed', 'message', format('Every delivery failed (%s); each delivery attempt says why', t.failed)) end as step_error,
      t.sent, t.failed, t.previewed
    from t cross join r where t.open = 0 and exists (select 1 from f)),
  e as (
    update runs x set status = o.status, finished_at = $5::timestamptz, updated_at = $5::timestamptz,
      error_code = o.run_error ->> 'code', error_message = o.run_error ->> 'message',
      steps = coalesce((select jsonb_agg(case when s.e ->> 'name' = 'delivery' and s.e ->> 'status' = 'running'
          then s.e || jsonb_build_object('status', o.step_status, 'finishedAt', $16::text, 'error', o.step_error,
            'detail', jsonb_build_object('sent', o.sent, 'failed', o.failed, 'previewed', o.previewed))
          else s.e end order by s.n) from jsonb_array_elements(x.steps) with ordinality as s(e, n)), '[]'::jsonb)
    from o where x.id = $2::uuid and x.status in (${quoted(RUN_WRITES.finish.from)})
    returning x.*),
  announced as (
    insert into events (type, data)
    select v.type, v.data from (
      select 1 as n, 'run.updated' as type, ${RUN_UPDATED_DATA} as data from e t
      union all
      select 2, 'report.updated', jsonb_build_object('id', t.report_id, 'change', 'ran', 'last_run', jsonb_build_object('id', t.id, 'status', t.status)) from e t
      union all
      select 3, 'channel.health', jsonb_build_object('id', h.id, 'health', h.after, 'previous', h.before) from h where h.before <> h.after
    ) v order by v.n)
  select (select count(*) from r)::int as run_found, (select count(*) from usual)::int as usual, (select count(*) from f)::int as finished,
    t.open, t.sent, t.failed, t.previewed, (select before from h) as before, (select after from h) as after, (select to_jsonb(e) from e) as ended
  from (select 1) one left join t on true`;

/** $1 report id: its deliveries in order, each with its channel's type and name (DeliveriesRepo.list's rows). */
const PLAN_SQL = `select to_jsonb(d) as d_row, c.type as channel_type, c.name as channel_name
  from deliveries d join channels c on c.id = d.channel_id where d.report_id = $1::uuid order by d.position`;

const iso = (d: Date) => d.toISOString();
/** deadlock_detected and serialization_failure: PostgreSQL rolled the end back, and it may simply be tried again. */
const CONFLICTS = new Set(['40P01', '40001']);
/** Tries of an end that met one of them. */
const END_TRIES = 3;

/** `client`: the store's postgres.js client (the statements are never part of a unit of work). */
export function createDeliveryStatements(client: Sql): SendingContextSource & AttemptEnds {
  return {
    async takeWithContext(id: string, jobId: string, deliveryId: string | null, now: Date) {
      const rows = await client.unsafe<Array<Record<string, unknown>>>(TAKE_SQL, [id, iso(now), jobId, deliveryId], { prepare: true });
      const raw = rows[0];
      if (!raw) return undefined;
      const run = runRecordOf(runRowOf(jsonOf(raw.r_row)));
      const d = raw.d_row ? deliveryRowOf(jsonOf(raw.d_row)) : undefined;
      const c = raw.c_row ? channelRowOf(jsonOf(raw.c_row)) : undefined;
      return {
        attempt: attemptOf(attemptRowOf(jsonOf(raw.a_row))),
        run,
        context: {
          report: { id: run.reportId, title: raw.report_title as string, description: (raw.report_description as string | null) ?? null },
          query: { id: raw.query_id as string, name: raw.query_name as string },
          callerEmail: (raw.caller_email as string | null) ?? null,
        },
        delivery: d && c ? deliveryOf({ ...d, channelType: c.type, channelName: c.name }) : undefined,
        channel: c ? channelOf(c) : undefined,
      };
    },

    async endAttempt(id: string, runId: string, end: AttemptEnd): Promise<EndRecorded> {
      const fin = iso(end.finishedAt);
      const params = [
        id, runId, end.status, end.sends, fin, end.statusCode, end.peerMessageId, end.detail,
        end.error ? JSON.stringify(end.error) : null, end.preview ? JSON.stringify(end.preview) : null,
        JSON.stringify((end.history ?? []).map((h) => ({ ...h, at: iso(h.at) }))),
        end.retry ? iso(end.retry.at) : null, end.retry?.retries ?? null, end.retry?.jobId ?? null,
        end.status === 'failed' && end.error ? JSON.stringify({ code: end.error.code, message: end.error.message, at: fin }) : null, fin,
      ] as never[];
      let rows: Array<Record<string, unknown>>;
      for (let tries = 1; ; tries += 1) {
        const tx = await client.reserve();
        try {
          // One write: each statement is prepared (after its first use) or simple, so postgres.js
          // pipelines them; a failure in one aborts the transaction and COMMIT then rolls it back.
          const settled = await Promise.allSettled([
            tx.unsafe('begin'),
            tx.unsafe(LOCK_SQL, [runId], { prepare: true }),
            tx.unsafe<Array<Record<string, unknown>>>(END_SQL, params, { prepare: true }),
            tx.unsafe('commit'),
          ]);
          const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
          if (failed) throw failed.reason;
          rows = (settled[2] as PromiseFulfilledResult<Array<Record<string, unknown>>>).value;
          break;
        } catch (err) {
          // The send is done: a deadlock or a serialisation failure is the end's to try again,
          // or the job would fail and its retry send the message a second time.
          if (tries < END_TRIES && CONFLICTS.has(String((err as { code?: unknown }).code))) continue;
          throw err;
        } finally {
          tx.release();
        }
      }
      const row = rows[0]!;
      if (row.run_found === 0) return { kind: 'gone' };
      if (row.usual === 0) return { kind: 'unusual' };
      if (row.finished === 0) return { kind: 'gone' };
      const tally = { open: row.open as number, sent: row.sent as number, failed: row.failed as number, previewed: row.previewed as number };
      const before = row.before as ChannelHealth | null;
      const after = row.after as ChannelHealth | null;
      return {
        kind: 'ended', tally,
        health: before && after ? { before, after } : undefined,
        runEnded: row.ended ? runRecordOf(runRowOf(jsonOf(row.ended))) : undefined,
      };
    },
  };
}

/**
 * A run's deliveries as its hand-over plans them (DeliveriesRepo.list's answer), one prepared
 * statement of the store's client: never inside a unit of work (the API's list, which may be,
 * stays the repository's).
 */
export function createDeliveryPlanReads(client: Sql): Pick<DeliveriesRepo, 'list'> {
  return {
    async list(reportId: string) {
      const rows = await client.unsafe<Array<Record<string, unknown>>>(PLAN_SQL, [reportId], { prepare: true });
      return rows.map((r) => deliveryOf({ ...deliveryRowOf(jsonOf(r.d_row)), channelType: r.channel_type as string, channelName: r.channel_name as string }));
    },
  };
}
