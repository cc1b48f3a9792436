-- Fewer row versions per event (issue 29: a hundred thousand due reports write two hundred
-- thousand events in a minute, and every run writes some). Same numbers, same order, same claims
-- as migrations 0008 and 0017; only how many times a row is written changes.
--
-- 1. herald_insert_events, which a unit of work now calls in its last statement instead of
--    herald_write_events (migration 0017, left as it is for processes of the code before while
--    an upgrade rolls through: they read its whole rows), numbers a writer's own rows as it
--    inserts them, when it holds the numbering lock: committed rows still without a number first
--    (as herald_number_events did), then its own rows, inserted with their seq and claimed for
--    publishing, in one statement. Before, they were inserted without a number and updated at
--    once: two row versions (and index entries) each. Without the lock they are inserted without
--    a number, as before, for the relays. Its own rows come back as their numbers only (type,
--    data and user_id null): the writer has them already, and sending each event's JSON back, to
--    be parsed again, was half of what the answer cost.
-- 2. herald_relay_events gives numbers and claims for publishing in one UPDATE. Before, it
--    numbered in one UPDATE and claimed in a second: three row versions per relayed event, now two.
--    Rows numbered but given back (their publishing failed) are claimed first, as they come first
--    in seq order.
-- 3. The relays' wake-up (NOTIFY herald_events when committed rows have no number) is sent by one
--    trigger per statement, not a deferred one per row that looked each row up again at the commit
--    (a thousand lookups at the commit of a scheduler's batch). A row is now numbered, if at all,
--    by the statement that inserts it, so what the statement inserted tells whether the relays are
--    needed; a notification is delivered at the commit, and dropped on a rollback, whatever fires it.
--    (herald_write_events of the code before inserts its rows, then numbers them: while an upgrade
--    rolls through, its inserts wake the relays once more, who find nothing to do.)
CREATE FUNCTION "herald_insert_events"("payload" jsonb) RETURNS TABLE("seq" bigint, "type" text, "data" jsonb, "user_id" uuid) LANGUAGE plpgsql AS $$
DECLARE base bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(7246135003) THEN
    INSERT INTO events AS e (type, data, user_id)
    SELECT v.t, v.d, v.u
      FROM ROWS FROM (jsonb_to_recordset(payload) AS (type text, data jsonb, user_id uuid)) WITH ORDINALITY AS v(t, d, u, n)
     ORDER BY v.n;
    RETURN;
  END IF;
  SELECT coalesce(max(e.seq), 0) INTO base FROM events e;
  -- One statement, one snapshot: the earlier rows it numbers are the ones its own rows follow.
  RETURN QUERY
  WITH earlier AS (
    UPDATE events e SET seq = base + n.rn, published_at = now()
      FROM (SELECT u.id, row_number() OVER (ORDER BY u.id) AS rn FROM events u WHERE u.seq IS NULL) n
     WHERE e.id = n.id
    RETURNING e.seq, e.type, e.data, e.user_id),
  own AS (
    INSERT INTO events AS e (seq, type, data, user_id, published_at)
    SELECT base + (SELECT count(*) FROM earlier) + v.n, v.t, v.d, v.u, now()
      FROM ROWS FROM (jsonb_to_recordset(payload) AS (type text, data jsonb, user_id uuid)) WITH ORDINALITY AS v(t, d, u, n)
     ORDER BY v.n
    RETURNING e.seq)
  SELECT x.seq, x.type, x.data, x.user_id FROM earlier x
  UNION ALL
  SELECT o.seq, NULL::text, NULL::jsonb, NULL::uuid FROM own o;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "herald_relay_events"("lim" integer) RETURNS TABLE("seq" bigint, "type" text, "data" jsonb, "user_id" uuid) LANGUAGE plpgsql AS $$
DECLARE base bigint; claimed bigint;
BEGIN
  -- One numberer at a time (see migration 0008): a relay waits for the lock.
  PERFORM pg_advisory_xact_lock(7246135003);
  RETURN QUERY UPDATE events e SET published_at = now()
    WHERE e.id IN (SELECT u.id FROM events u WHERE u.seq IS NOT NULL AND u.published_at IS NULL ORDER BY u.seq LIMIT lim)
    RETURNING e.seq, e.type, e.data, e.user_id;
  GET DIAGNOSTICS claimed = ROW_COUNT;
  IF claimed >= lim THEN RETURN; END IF;
  SELECT coalesce(max(e.seq), 0) INTO base FROM events e;
  RETURN QUERY UPDATE events e SET seq = base + n.rn, published_at = now()
    FROM (SELECT u.id, row_number() OVER (ORDER BY u.id) AS rn
            FROM (SELECT x.id FROM events x WHERE x.seq IS NULL ORDER BY x.id LIMIT lim - claimed) u) n
   WHERE e.id = n.id
  RETURNING e.seq, e.type, e.data, e.user_id;
END $$;
--> statement-breakpoint
DROP TRIGGER "events_notify" ON "events";
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "herald_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM inserted WHERE inserted.seq IS NULL) THEN PERFORM pg_notify('herald_events', ''); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "events_notify" AFTER INSERT ON "events" REFERENCING NEW TABLE AS "inserted" FOR EACH STATEMENT EXECUTE FUNCTION "herald_events_notify"();
