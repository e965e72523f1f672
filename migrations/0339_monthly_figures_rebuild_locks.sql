-- rebuild_monthly_mail_figures (0334) recounted without a lock: a write committed between its DELETE
-- and its counts was counted twice or not at all (found for its twin rebuild_piece_status_counts,
-- 0338). 0334's recount keeps its body under a new name; the rebuild takes share locks first, so it
-- waits for open writers of the three tables and holds new ones to the end of the caller's transaction.
ALTER FUNCTION rebuild_monthly_mail_figures(uuid) RENAME TO recount_monthly_mail_figures;

CREATE FUNCTION rebuild_monthly_mail_figures(figures_org uuid) RETURNS void LANGUAGE sql AS $$
  LOCK TABLE mail_pieces, leads, conversions IN SHARE MODE;
  SELECT recount_monthly_mail_figures(figures_org);
$$;
