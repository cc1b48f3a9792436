CREATE TABLE "config_managed" (
	"kind" text NOT NULL,
	"resource_id" uuid NOT NULL,
	"managed_by" text NOT NULL,
	"path" text,
	"detached_at" timestamp (3) with time zone,
	"detached_by" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "config_managed_kind_resource_id_pk" PRIMARY KEY("kind","resource_id"),
	CONSTRAINT "config_managed_kind_check" CHECK ("config_managed"."kind" in ('connection', 'query', 'channel', 'report')),
	CONSTRAINT "config_managed_by_check" CHECK ("config_managed"."managed_by" in ('import', 'gitops'))
);
--> statement-breakpoint
ALTER TABLE "config_managed" ADD CONSTRAINT "config_managed_detached_by_users_id_fk" FOREIGN KEY ("detached_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;