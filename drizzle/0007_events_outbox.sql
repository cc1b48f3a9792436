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
