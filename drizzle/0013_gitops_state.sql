CREATE TABLE "gitops_state" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"directory" text,
	"last_reconcile_at" timestamp (3) with time zone,
	"result" text,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"drift" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"applied_hash" text,
	"applied_generation" bigint DEFAULT 0 NOT NULL,
	"generation" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "gitops_state_one_row" CHECK ("gitops_state"."id" = 1),
	CONSTRAINT "gitops_state_result_check" CHECK ("gitops_state"."result" in ('applied', 'unchanged', 'failed'))
);
