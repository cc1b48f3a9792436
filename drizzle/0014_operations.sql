CREATE TABLE "alert_sends" (
	"id" uuid PRIMARY KEY NOT NULL,
	"problem_id" uuid,
	"event" text NOT NULL,
	"channel_id" uuid,
	"fallback" integer DEFAULT 0 NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "alert_sends_event_check" CHECK ("alert_sends"."event" in ('opened', 'repeated', 'resolved', 'test')),
	CONSTRAINT "alert_sends_status_check" CHECK ("alert_sends"."status" in ('sent', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"severity" text NOT NULL,
	"title" text NOT NULL,
	"body" text,
	"resource_type" text,
	"resource_id" uuid,
	"dedupe_key" text NOT NULL,
	"count" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"read_at" timestamp (3) with time zone,
	CONSTRAINT "notifications_severity_check" CHECK ("notifications"."severity" in ('info', 'warning', 'critical'))
);
--> statement-breakpoint
CREATE TABLE "ops_leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ops_status" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "system_problems" (
	"id" uuid PRIMARY KEY NOT NULL,
	"fingerprint" text NOT NULL,
	"kind" text NOT NULL,
	"severity" text NOT NULL,
	"message" text NOT NULL,
	"resource_type" text,
	"resource_id" uuid,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"opened_at" timestamp (3) with time zone NOT NULL,
	"last_seen_at" timestamp (3) with time zone NOT NULL,
	"resolved_at" timestamp (3) with time zone,
	"last_alert_at" timestamp (3) with time zone,
	"alerts" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "system_problems_severity_check" CHECK ("system_problems"."severity" in ('warning', 'critical'))
);
--> statement-breakpoint
ALTER TABLE "alert_sends" ADD CONSTRAINT "alert_sends_problem_id_system_problems_id_fk" FOREIGN KEY ("problem_id") REFERENCES "public"."system_problems"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_sends" ADD CONSTRAINT "alert_sends_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_sends_channel_idx" ON "alert_sends" USING btree ("channel_id","created_at");--> statement-breakpoint
CREATE INDEX "alert_sends_problem_idx" ON "alert_sends" USING btree ("problem_id");--> statement-breakpoint
CREATE INDEX "alert_sends_created_idx" ON "alert_sends" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "notifications_user_idx" ON "notifications" USING btree ("user_id","updated_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_unread_key" ON "notifications" USING btree ("user_id","dedupe_key") WHERE "notifications"."read_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "system_problems_open_key" ON "system_problems" USING btree ("fingerprint") WHERE "system_problems"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "system_problems_opened_idx" ON "system_problems" USING btree ("opened_at","id");--> statement-breakpoint
CREATE INDEX "runs_finished_idx" ON "runs" USING btree ("finished_at") WHERE "runs"."finished_at" is not null;--> statement-breakpoint
CREATE INDEX "runs_failures_idx" ON "runs" USING btree ("finished_at","id") WHERE "runs"."status" in ('failed', 'partial');