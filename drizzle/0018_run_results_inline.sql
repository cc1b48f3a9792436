-- Small result files kept in the store (src/infra/artifacts/inline-results.ts): a run whose gzip
-- NDJSON file is at most 16 KiB writes it here, in the statement that ends the run, instead of a
-- file (or an S3 object) of its own. The run's result_key starts with `db:` then; the row goes
-- with its run (cascade) and with retention (storage-repo forget).
CREATE TABLE "run_results" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"bytes" "bytea" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "run_results" ADD CONSTRAINT "run_results_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;