-- A delivery attempt's end in one statement (src/infra/db/stores/delivery-statements.ts, endAttempt):
-- the run's row is locked first, then the end runs as a statement of its own, which in a VOLATILE
-- function takes a fresh snapshot: it sees every other attempt's end that committed while this one
-- waited for the lock, so the run's last open attempt always settles the run. Before, the same
-- was a transaction of four statements (BEGIN, the lock, the end, COMMIT) on a reserved
-- connection; as one autocommit statement it pipelines on a shared connection with the worker's
-- other statements. Parameters: $1 attempt id, $2 run id, $3 status, $4 sends, $5 finished at,
-- $6 status code, $7 peer message id, $8 detail, $9 error, $10 preview, $11 history entries,
-- $12 next retry at, $13 retries, $14 job id, $15 the channel's last error, $16 finished at as
-- text (the steps' JSON holds it as the domain writes it). The status lists and the run.updated
-- event's data are the state machine's and run-engine-repo.ts's (tests/integration/delivery-end-function.test.ts
-- checks they still agree).
CREATE FUNCTION "herald_end_attempt"(uuid, uuid, text, integer, timestamptz, integer, text, text, jsonb, jsonb, jsonb, timestamptz, integer, text, jsonb, text)
  RETURNS TABLE("run_found" integer, "usual" integer, "finished" integer, "open" integer, "sent" integer, "failed" integer, "previewed" integer, "before" text, "after" text, "ended" jsonb)
  LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM 1 FROM runs WHERE id = $2 FOR UPDATE;
  RETURN QUERY
with r as (select * from runs where id = $2::uuid),
  usual as (select 1 from r where r.status = 'running' and r.delivering_since is not null and r.cancel_requested_at is null),
  f as (
    update delivery_attempts set status = $3::text, sends = sends + $4::int, finished_at = $5::timestamptz, status_code = $6::int,
      peer_message_id = $7::text, detail = $8::text, error = $9::jsonb, preview = $10::jsonb, history = history || $11::jsonb,
      updated_at = $5::timestamptz, next_retry_at = $12::timestamptz, retries = coalesce($13::int, retries), job_id = coalesce($14::text, job_id)
    where id = $1::uuid and status in ('sending') and exists (select 1 from usual)
    returning channel_id),
  t as (
    select count(*) filter (where a.status in ('pending', 'sending', 'queued'))::int as open,
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
    from o where x.id = $2::uuid and x.status in ('running')
    returning x.*),
  announced as (
    insert into events (type, data)
    select v.type, v.data from (
      select 1 as n, 'run.updated' as type, jsonb_build_object('id', t.id, 'report_id', t.report_id, 'status', t.status, 'trigger', t.trigger)
  || case when t.finished_at is null then '{}'::jsonb else jsonb_build_object('finished_at', to_char(t.finished_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) end
  || case when t.error_code is null then '{}'::jsonb else jsonb_build_object('error_code', t.error_code) end as data from e t
      union all
      select 2, 'report.updated', jsonb_build_object('id', t.report_id, 'change', 'ran', 'last_run', jsonb_build_object('id', t.id, 'status', t.status)) from e t
      union all
      select 3, 'channel.health', jsonb_build_object('id', h.id, 'health', h.after, 'previous', h.before) from h where h.before <> h.after
    ) v order by v.n)
  select (select count(*) from r)::int as run_found, (select count(*) from usual)::int as usual, (select count(*) from f)::int as finished,
    t.open, t.sent, t.failed, t.previewed, (select before from h) as before, (select after from h) as after, (select to_jsonb(e) from e) as ended
  from (select 1) one left join t on true;
END $$;
