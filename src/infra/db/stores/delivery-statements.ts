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
 *   as settle-run.ts's deliveredOutcome does. One autocommit statement, herald_end_attempt
 *   (drizzle/0016_delivery_end_function.sql): it locks the run's row, then ends the attempt in a
 *   statement begun after the lock was granted, so it sees every other attempt's end that
 *   committed before (the last one always settles the run). Not on a reserved connection, so it
 *   pipelines with the worker's other statements. A run that is not simply delivering (ended
 *   meanwhile, a cancellation asked for) is left untouched and the caller records the end in
 *   its unit of work instead.
 */
import { channels, deliveries, deliveryAttempts } from '../schema.js';
import type { Sql } from '../client.js';
import { rowMapper, runRecordOf, runRowOf } from './runs-repo.js';
import { attemptOf, channelOf, deliveryOf } from './channels-repo.js';
import { ATTEMPT_WRITES } from './status-writes.js';
import type { AttemptEnd, DeliveriesRepo } from '../../../domain/channels/ports.js';
import type { ChannelHealth } from '../../../domain/channels/model.js';
import type { AttemptEnds, EndRecorded, SendingContextSource } from '../../../domain/deliveries/ports.js';

const attemptRowOf = rowMapper<typeof deliveryAttempts.$inferSelect>(deliveryAttempts);
const deliveryRowOf = rowMapper<typeof deliveries.$inferSelect>(deliveries);
const channelRowOf = rowMapper<typeof channels.$inferSelect>(channels);
const jsonOf = (value: unknown): Record<string, unknown> => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
const quoted = (list: readonly string[]) => list.map((s) => `'${s}'`).join(', ');

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

/**
 * The end: herald_end_attempt (drizzle/0016_delivery_end_function.sql), whose parameters are
 * $1 attempt id, $2 run id, $3 status, $4 sends, $5 finished at (ISO text), $6 status code,
 * $7 peer message id, $8 detail, $9 error (jsonb), $10 preview (jsonb), $11 history entries
 * (jsonb), $12 next retry at, $13 retries, $14 job id, $15 the channel's last error (jsonb), $16
 * finished at again (as text: the steps' JSON holds it as the domain writes it). The outcome
 * when it is the run's last open attempt is settle-run.ts's deliveredOutcome.
 */
const END_SQL = 'select * from herald_end_attempt($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)';

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
        try {
          rows = await client.unsafe<Array<Record<string, unknown>>>(END_SQL, params, { prepare: true });
          break;
        } catch (err) {
          // The send is done: a deadlock or a serialisation failure is the end's to try again,
          // or the job would fail and its retry send the message a second time.
          if (tries < END_TRIES && CONFLICTS.has(String((err as { code?: unknown }).code))) continue;
          throw err;
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
