-- A unit of work's events written and numbered in its last statement (src/infra/db/stores/events-repo.ts,
-- transactionOutbox): the rows of `payload` (a JSON array of {type, data, user_id}) are inserted in
-- its order, then numbered and claimed exactly as herald_number_events numbers a writer's own rows
-- (migration 0008: nothing at once when the numbering lock is taken, the relays number them after
-- the commit). Before, the rows were inserted as the work added them and numbered by a second
-- statement at the end: one round trip more for every write. The inserts run as a statement of
-- their own inside this function, so herald_number_events sees them; events_notify, a deferred
-- trigger, still fires at the commit.
CREATE FUNCTION "herald_write_events"("payload" jsonb) RETURNS TABLE("seq" bigint, "type" text, "data" jsonb, "user_id" uuid) LANGUAGE plpgsql AS $$
DECLARE written bigint[];
BEGIN
  WITH ins AS (
    INSERT INTO events AS e (type, data, user_id)
    SELECT v.t, v.d, v.u
      FROM ROWS FROM (jsonb_to_recordset(payload) AS (type text, data jsonb, user_id uuid)) WITH ORDINALITY AS v(t, d, u, n)
     ORDER BY v.n
    RETURNING e.id)
  SELECT array_agg(ins.id) INTO written FROM ins;
  RETURN QUERY SELECT * FROM herald_number_events(written);
END $$;
