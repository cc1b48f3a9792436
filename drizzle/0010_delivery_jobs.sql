ALTER TABLE "delivery_attempts" ADD COLUMN "next_retry_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD COLUMN "retries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD COLUMN "job_id" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "delivering_since" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "delivery_attempts_open_idx" ON "delivery_attempts" USING btree ("updated_at") WHERE "delivery_attempts"."status" in ('pending', 'sending', 'queued');--> statement-breakpoint
CREATE INDEX "delivery_attempts_retry_idx" ON "delivery_attempts" USING btree ("next_retry_at") WHERE "delivery_attempts"."next_retry_at" is not null;