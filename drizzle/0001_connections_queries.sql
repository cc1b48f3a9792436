CREATE TABLE "connections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"host" text NOT NULL,
	"port" integer NOT NULL,
	"database" text NOT NULL,
	"username" text NOT NULL,
	"password_sealed" text,
	"ssl_mode" text NOT NULL,
	"ssl_ca" text,
	"options" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"schema_snapshot" jsonb,
	"schema_refreshed_at" timestamp (3) with time zone,
	"created_by" uuid,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "connections_port_check" CHECK ("connections"."port" between 1 and 65535)
);
--> statement-breakpoint
CREATE TABLE "queries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"connection_id" uuid NOT NULL,
	"sql" text NOT NULL,
	"parameters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"current_version" integer DEFAULT 1 NOT NULL,
	"created_by" uuid,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "query_versions" (
	"query_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"sql" text NOT NULL,
	"parameters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"connection_id" uuid NOT NULL,
	"restored_from" integer,
	"created_by" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "query_versions_query_id_number_pk" PRIMARY KEY("query_id","number")
);
--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "queries" ADD CONSTRAINT "queries_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "queries" ADD CONSTRAINT "queries_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "query_versions" ADD CONSTRAINT "query_versions_query_id_queries_id_fk" FOREIGN KEY ("query_id") REFERENCES "public"."queries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "query_versions" ADD CONSTRAINT "query_versions_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "query_versions" ADD CONSTRAINT "query_versions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "connections_name_key" ON "connections" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "connections_created_by_idx" ON "connections" USING btree ("created_by");--> statement-breakpoint
CREATE UNIQUE INDEX "queries_name_key" ON "queries" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "queries_updated_idx" ON "queries" USING btree ("updated_at","id");--> statement-breakpoint
CREATE INDEX "queries_connection_id_idx" ON "queries" USING btree ("connection_id");--> statement-breakpoint
CREATE INDEX "queries_created_by_idx" ON "queries" USING btree ("created_by");--> statement-breakpoint
CREATE INDEX "query_versions_connection_id_idx" ON "query_versions" USING btree ("connection_id");--> statement-breakpoint
CREATE INDEX "query_versions_created_by_idx" ON "query_versions" USING btree ("created_by");