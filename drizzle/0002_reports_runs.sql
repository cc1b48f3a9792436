CREATE TABLE "idempotency_keys" (
	"user_id" uuid NOT NULL,
	"operation" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"run_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_user_id_operation_key_pk" PRIMARY KEY("user_id","operation","key")
);
--> statement-breakpoint
CREATE TABLE "reports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"query_id" uuid NOT NULL,
	"query_version" integer,
	"parameters" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"schedule_cron" text,
	"schedule_timezone" text,
	"condition" jsonb,
	"paused" boolean DEFAULT false NOT NULL,
	"next_run_at" timestamp (3) with time zone,
	"last_run_id" uuid,
	"owner_id" uuid,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reports_schedule_check" CHECK (("reports"."schedule_cron" is null) = ("reports"."schedule_timezone" is null))
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"report_id" uuid NOT NULL,
	"trigger" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"deliver" boolean DEFAULT true NOT NULL,
	"slot" timestamp (3) with time zone,
	"parameters" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"condition" jsonb,
	"condition_met" boolean,
	"query_version" integer,
	"row_count" integer,
	"columns" jsonb,
	"sample" jsonb,
	"steps" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error_code" text,
	"error_message" text,
	"result_key" text,
	"result_bytes" bigint,
	"result_hash" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_by" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"cancel_requested_at" timestamp (3) with time zone,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "runs_trigger_check" CHECK ("runs"."trigger" in ('schedule', 'manual', 'test')),
	CONSTRAINT "runs_status_check" CHECK ("runs"."status" in ('pending', 'running', 'success', 'partial', 'skipped', 'failed', 'cancelled'))
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_query_id_queries_id_fk" FOREIGN KEY ("query_id") REFERENCES "public"."queries"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_last_run_id_runs_id_fk" FOREIGN KEY ("last_run_id") REFERENCES "public"."runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "idempotency_keys_run_id_idx" ON "idempotency_keys" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "reports_title_idx" ON "reports" USING btree (lower("title"),"id");--> statement-breakpoint
CREATE INDEX "reports_query_id_idx" ON "reports" USING btree ("query_id");--> statement-breakpoint
CREATE INDEX "reports_owner_id_idx" ON "reports" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "reports_due_idx" ON "reports" USING btree ("next_run_at") WHERE "reports"."next_run_at" is not null and not "reports"."paused";--> statement-breakpoint
CREATE UNIQUE INDEX "runs_report_slot_key" ON "runs" USING btree ("report_id","slot");--> statement-breakpoint
CREATE INDEX "runs_created_idx" ON "runs" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "runs_report_created_idx" ON "runs" USING btree ("report_id","created_at","id");--> statement-breakpoint
CREATE INDEX "runs_unfinished_idx" ON "runs" USING btree ("status","created_at") WHERE "runs"."status" in ('pending', 'running');--> statement-breakpoint
CREATE INDEX "runs_created_by_idx" ON "runs" USING btree ("created_by");