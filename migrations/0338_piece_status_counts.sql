-- Pieces by organization and status, kept as the rows change (issue 41): the operator's
-- porchlight_pieces gauge counted every piece on each scrape (a parallel scan of the whole table:
-- 142 ms and 270 MB read at 1 M pieces on PostgreSQL, growing with all mail ever sent); it now
-- sums this table, whose size grows with organizations, not mail. Triggers keep it in the
-- transaction of the change, whichever code path writes; `rebuild_piece_status_counts(org)`
-- recounts it from the rows (the backfill below, bulk loads with the triggers off).
--
-- Sharded like monthly_mail_figures (0334): each transaction adds to a shard no other open
-- transaction holds, so concurrent writers of one organization never wait on each other's row.
CREATE TABLE piece_status_counts (
  org_id uuid NOT NULL,
  status text NOT NULL,
  shard smallint NOT NULL,
  pieces bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, status, shard)
);

CREATE FUNCTION add_piece_status_count(count_org uuid, count_status text, delta bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  first_shard int := pg_backend_pid() % 64;
  shard_taken int;
BEGIN
  IF delta = 0 THEN
    RETURN;
  END IF;
  -- Held to the end of the transaction (see add_monthly_figures): no wait and no deadlock unless 64
  -- transactions write one organization's status at once (the last then shares the first shard).
  FOR step IN 0..63 LOOP
    IF pg_try_advisory_xact_lock(1346981203, hashtext(concat_ws('/', count_org, count_status, (first_shard + step) % 64))) THEN
      shard_taken := (first_shard + step) % 64;
      EXIT;
    END IF;
  END LOOP;
  INSERT INTO piece_status_counts AS c (org_id, status, shard, pieces)
  VALUES (count_org, count_status, COALESCE(shard_taken, first_shard), delta)
  ON CONFLICT (org_id, status, shard) DO UPDATE SET pieces = c.pieces + EXCLUDED.pieces;
END
$$;

-- Inserts and deletes are counted once a statement (an import's thousands of rows: one add per
-- status); a status change once a row, and only when the status (or organization) changes.
CREATE FUNCTION count_inserted_piece_statuses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM add_piece_status_count(org_id, status, count(*)) FROM inserted_pieces GROUP BY org_id, status;
  RETURN NULL;
END
$$;

CREATE FUNCTION count_deleted_piece_statuses() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM add_piece_status_count(org_id, status, -count(*)) FROM deleted_pieces GROUP BY org_id, status;
  RETURN NULL;
END
$$;

CREATE FUNCTION count_piece_status_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM add_piece_status_count(OLD.org_id, OLD.status, -1);
  PERFORM add_piece_status_count(NEW.org_id, NEW.status, 1);
  RETURN NULL;
END
$$;

CREATE TRIGGER mail_piece_status_counts_on_insert AFTER INSERT ON mail_pieces
  REFERENCING NEW TABLE AS inserted_pieces FOR EACH STATEMENT
  EXECUTE FUNCTION count_inserted_piece_statuses();
CREATE TRIGGER mail_piece_status_counts_on_delete AFTER DELETE ON mail_pieces
  REFERENCING OLD TABLE AS deleted_pieces FOR EACH STATEMENT
  EXECUTE FUNCTION count_deleted_piece_statuses();
CREATE TRIGGER mail_piece_status_counts_on_update AFTER UPDATE ON mail_pieces FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.org_id IS DISTINCT FROM NEW.org_id)
  EXECUTE FUNCTION count_piece_status_change();

-- Recounts one organization's counts (every organization's with NULL) from its rows. The share lock
-- waits for open writers of pieces and holds new ones to the end of the caller's transaction: a write
-- committed between the DELETE and the count would otherwise be counted twice or not at all.
CREATE FUNCTION rebuild_piece_status_counts(count_org uuid) RETURNS void LANGUAGE sql AS $$
  LOCK TABLE mail_pieces IN SHARE MODE;
  DELETE FROM piece_status_counts WHERE count_org IS NULL OR org_id = count_org;
  INSERT INTO piece_status_counts (org_id, status, shard, pieces)
  SELECT org_id, status, 0, count(*) FROM mail_pieces
  WHERE count_org IS NULL OR org_id = count_org
  GROUP BY org_id, status;
$$;

SELECT rebuild_piece_status_counts(NULL);
