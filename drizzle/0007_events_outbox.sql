CREATE TABLE "events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"seq" bigint,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "events_seq_key" ON "events" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "events_unsequenced_idx" ON "events" USING btree ("id") WHERE "events"."seq" is null;--> statement-breakpoint
CREATE INDEX "events_unpublished_idx" ON "events" USING btree ("seq") WHERE "events"."seq" is not null and "events"."published_at" is null;--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING btree ("created_at");--> statement-breakpoint
CREATE FUNCTION "herald_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('herald_events', ''); RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER "events_notify" AFTER INSERT ON "events" FOR EACH STATEMENT EXECUTE FUNCTION "herald_events_notify"();
--> statement-breakpoint
CREATE FUNCTION "herald_relay_events"("lim" integer) RETURNS TABLE("seq" bigint, "type" text, "data" jsonb) LANGUAGE plpgsql AS $$
DECLARE base bigint;
BEGIN
  -- One relay at a time; a relay that finds the lock taken leaves the work to its holder, who
  -- was notified of the same commits and passes again.
  IF NOT pg_try_advisory_xact_lock(7246135003) THEN RETURN; END IF;
  SELECT coalesce(max(e.seq), 0) INTO base FROM events e;
  UPDATE events e SET seq = base + n.rn
    FROM (SELECT u.id, row_number() OVER (ORDER BY u.id) AS rn FROM (SELECT id FROM events WHERE events.seq IS NULL ORDER BY id LIMIT lim) u) n
   WHERE e.id = n.id;
  RETURN QUERY UPDATE events e SET published_at = now()
    WHERE e.id IN (SELECT u.id FROM events u WHERE u.seq IS NOT NULL AND u.published_at IS NULL ORDER BY u.seq LIMIT lim)
    RETURNING e.seq, e.type, e.data;
END $$;
