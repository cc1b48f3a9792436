CREATE INDEX "reports_last_run_idx" ON "reports" USING btree ("last_run_id");--> statement-breakpoint
CREATE INDEX "runs_failed_idx" ON "runs" USING btree ("id") WHERE "runs"."status" = 'failed';