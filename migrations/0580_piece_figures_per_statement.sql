-- A statement inserting many pieces (an operator's or a reactivation mailing, up to 5000 cards; a
-- bulk load) upserted its month's figures row once per piece: one transaction rewrote one row
-- thousands of times, each update walking the versions of the row it had written before, so the
-- cost grew with the square of the rows (5000 pieces: 1.1 s on PostgreSQL, 100 000: 340 s). A
-- statement's inserted pieces are now counted once, grouped by organization, campaign and month,
-- as the status counts are (0338). Updates and deletes are still counted row by row (0334, 0350).
CREATE FUNCTION count_inserted_piece_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM add_monthly_figures(org_id, created_month, campaign_figures_source(org_id, campaign_id),
                              queued => queued, held_out => held)
  FROM (SELECT org_id, campaign_id,
               utc_month(CASE WHEN status = 'held_out' THEN COALESCE(status_updated_at, created_at)
                              ELSE created_at END) AS created_month,
               count(*) FILTER (WHERE status IS DISTINCT FROM 'held_out') AS queued,
               count(*) FILTER (WHERE status = 'held_out') AS held
        FROM inserted_pieces GROUP BY 1, 2, 3) created;
  PERFORM add_monthly_figures(org_id, mailed_month, campaign_figures_source(org_id, campaign_id),
                              mailed => mailed)
  FROM (SELECT org_id, campaign_id, utc_month(mailed_at) AS mailed_month, count(*) AS mailed
        FROM inserted_pieces WHERE mailed_at IS NOT NULL GROUP BY 1, 2, 3) mailed;
  RETURN NULL;
END
$$;

DROP TRIGGER mail_piece_figures_on_insert_or_delete ON mail_pieces;
CREATE TRIGGER mail_piece_figures_on_insert AFTER INSERT ON mail_pieces
  REFERENCING NEW TABLE AS inserted_pieces FOR EACH STATEMENT
  EXECUTE FUNCTION count_inserted_piece_figures();
CREATE TRIGGER mail_piece_figures_on_delete AFTER DELETE ON mail_pieces FOR EACH ROW
  EXECUTE FUNCTION count_mail_piece_figures();
