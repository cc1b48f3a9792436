ALTER TABLE "events" ADD COLUMN "user_id" uuid;--> statement-breakpoint
-- The last statement of a transaction that wrote events (`ids`): when no one else holds the
-- numbering lock (the one of herald_relay_events, then held to this transaction's commit), it
-- numbers first every committed row still without a number (in insert order: what a writer left
-- to the relays, which may be what this transaction's change followed, so it must come first),
-- then its own rows; all of them are claimed for publishing by the writer right after its
-- commit, so no relay transaction sits between a commit and the event streams. Only rows that
-- exist are numbered (a join, not the ids given), so the numbers have no gap. When the lock is
-- taken it answers nothing at once and the relays number these rows after the commit (in
-- batches). Waiting for the lock instead was measured: it serialises the commits of concurrent
-- writers, and runs/s at concurrency 10 fell by about a tenth. Numbers follow what the
-- statement sees, so it needs READ COMMITTED (PostgreSQL's default, which Herald's store uses).
CREATE FUNCTION "herald_number_events"("ids" bigint[]) RETURNS TABLE("seq" bigint, "type" text, "data" jsonb, "user_id" uuid) LANGUAGE plpgsql AS $$
DECLARE base bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(7246135003) THEN RETURN; END IF;
  SELECT coalesce(max(e.seq), 0) INTO base FROM events e;
  RETURN QUERY UPDATE events e SET seq = base + n.rn, published_at = now()
    FROM (SELECT u.id, row_number() OVER (ORDER BY (u.id = ANY(ids)), u.id) AS rn
            FROM events u WHERE u.seq IS NULL) n
   WHERE e.id = n.id
  RETURNING e.seq, e.type, e.data, e.user_id;
END $$;
--> statement-breakpoint
DROP FUNCTION "herald_relay_events"(integer);
--> statement-breakpoint
CREATE FUNCTION "herald_relay_events"("lim" integer) RETURNS TABLE("seq" bigint, "type" text, "data" jsonb, "user_id" uuid) LANGUAGE plpgsql AS $$
DECLARE base bigint;
BEGIN
  -- One numberer at a time. The holder may be a writer numbering its own events, which knows
  -- nothing of the rest: a relay waits for the lock (a commit's length) rather than leave the
  -- work to it.
  PERFORM pg_advisory_xact_lock(7246135003);
  SELECT coalesce(max(e.seq), 0) INTO base FROM events e;
  UPDATE events e SET seq = base + n.rn
    FROM (SELECT u.id, row_number() OVER (ORDER BY u.id) AS rn FROM (SELECT id FROM events WHERE events.seq IS NULL ORDER BY id LIMIT lim) u) n
   WHERE e.id = n.id;
  RETURN QUERY UPDATE events e SET published_at = now()
    WHERE e.id IN (SELECT u.id FROM events u WHERE u.seq IS NOT NULL AND u.published_at IS NULL ORDER BY u.seq LIMIT lim)
    RETURNING e.seq, e.type, e.data, e.user_id;
END $$;
--> statement-breakpoint
-- The relays are woken only for what a writer did not number itself: the notification moves from
-- the insert to the commit (a deferred trigger), and is sent only while the row has no seq.
DROP TRIGGER "events_notify" ON "events";
--> statement-breakpoint
DROP FUNCTION "herald_events_notify"();
--> statement-breakpoint
CREATE FUNCTION "herald_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM events WHERE id = NEW.id AND seq IS NULL) THEN PERFORM pg_notify('herald_events', ''); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER "events_notify" AFTER INSERT ON "events" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "herald_events_notify"();
