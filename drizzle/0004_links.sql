CREATE TABLE "link_downloads" (
	"id" uuid PRIMARY KEY NOT NULL,
	"link_id" uuid NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"client_address" text NOT NULL,
	"user_agent" text
);
--> statement-breakpoint
CREATE TABLE "links" (
	"id" uuid PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"run_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"format" text NOT NULL,
	"created_by" uuid,
	"attempt_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"revoked_by" uuid,
	"download_count" integer DEFAULT 0 NOT NULL,
	"last_downloaded_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "link_downloads" ADD CONSTRAINT "link_downloads_link_id_links_id_fk" FOREIGN KEY ("link_id") REFERENCES "public"."links"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_attempt_id_delivery_attempts_id_fk" FOREIGN KEY ("attempt_id") REFERENCES "public"."delivery_attempts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "links" ADD CONSTRAINT "links_revoked_by_users_id_fk" FOREIGN KEY ("revoked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "link_downloads_link_idx" ON "link_downloads" USING btree ("link_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "links_token_hash_key" ON "links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "links_created_idx" ON "links" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "links_run_idx" ON "links" USING btree ("run_id");