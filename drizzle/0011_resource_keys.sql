ALTER TABLE "channels" ADD COLUMN "key" text;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "key" text;--> statement-breakpoint
ALTER TABLE "queries" ADD COLUMN "key" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "channels_key_key" ON "channels" USING btree ("key");--> statement-breakpoint
CREATE UNIQUE INDEX "connections_key_key" ON "connections" USING btree ("key");--> statement-breakpoint
CREATE UNIQUE INDEX "queries_key_key" ON "queries" USING btree ("key");--> statement-breakpoint
CREATE UNIQUE INDEX "reports_key_key" ON "reports" USING btree ("key");--> statement-breakpoint
-- Existing rows get the key a create would have given them (src/core/slug.ts): the name (a
-- report's title) with its accents dropped, in lower case, every run of other characters one '-',
-- trimmed of '-', at most 63 characters, 'x' when nothing is left; a key an older row of the table
-- (creation order) already holds gets the first free suffix, -2, -3 …. One row at a time rather
-- than numbering duplicates with row_number(): a name's own slug can be another's suffixed one
-- ("Sales", "Sales", "Sales 2"), which numbering would give the same key. The unique indexes above
-- (NULLs are distinct) keep each lookup an index probe.
DO $$
DECLARE
  tbl text;
  r record;
  base text;
  candidate text;
  n integer;
  taken boolean;
BEGIN
  FOREACH tbl IN ARRAY ARRAY['connections', 'queries', 'channels', 'reports'] LOOP
    FOR r IN EXECUTE format('SELECT id, %I AS name FROM %I ORDER BY created_at, id', CASE tbl WHEN 'reports' THEN 'title' ELSE 'name' END, tbl) LOOP
      base := coalesce(nullif(trim(BOTH '-' FROM left(trim(BOTH '-' FROM regexp_replace(
        lower(regexp_replace(normalize(r.name, NFKD), '[\u0300-\u036f]', '', 'g')), '[^a-z0-9]+', '-', 'g')), 63)), ''), 'x');
      candidate := base;
      n := 1;
      LOOP
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE key = $1)', tbl) INTO taken USING candidate;
        EXIT WHEN NOT taken;
        n := n + 1;
        candidate := rtrim(left(base, 63 - length('-' || n)), '-') || '-' || n;
      END LOOP;
      EXECUTE format('UPDATE %I SET key = $1 WHERE id = $2', tbl) USING candidate, r.id;
    END LOOP;
  END LOOP;
END $$;--> statement-breakpoint
ALTER TABLE "channels" ALTER COLUMN "key" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "connections" ALTER COLUMN "key" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "queries" ALTER COLUMN "key" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "reports" ALTER COLUMN "key" SET NOT NULL;
