-- rebuild_monthly_mail_figures (0334) recounted without a lock: a write committed between its DELETE
-- and its counts was counted twice or not at all (found for its twin rebuild_piece_status_counts,
-- 0338). It now takes share locks first: it waits for open writers of the three tables and holds new
-- ones to the end of the caller's transaction. The body is otherwise 0334's.
CREATE OR REPLACE FUNCTION rebuild_monthly_mail_figures(figures_org uuid) RETURNS void LANGUAGE sql AS $$
  LOCK TABLE mail_pieces, leads, conversions IN SHARE MODE;
  DELETE FROM monthly_mail_figures WHERE figures_org IS NULL OR org_id = figures_org;
  INSERT INTO monthly_mail_figures
    (org_id, month, source, shard, cards_queued, cards_held_out, cards_mailed, leads, won_deals, revenue)
  SELECT org_id, month, source, 0, sum(queued), sum(held_out), sum(mailed), sum(new_leads), sum(deals), sum(amount)
  FROM (
    SELECT p.org_id, utc_month(CASE WHEN p.status = 'held_out' THEN COALESCE(p.status_updated_at, p.created_at) ELSE p.created_at END) AS month,
           figures_source_or_none(c.automation_id, c.origin, c.id) AS source,
           (p.status <> 'held_out')::int AS queued, (p.status = 'held_out')::int AS held_out,
           0 AS mailed, 0 AS new_leads, 0 AS deals, 0::numeric AS amount
    FROM mail_pieces p LEFT JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
    WHERE figures_org IS NULL OR p.org_id = figures_org
    UNION ALL
    SELECT p.org_id, utc_month(p.mailed_at), figures_source_or_none(c.automation_id, c.origin, c.id), 0, 0, 1, 0, 0, 0
    FROM mail_pieces p LEFT JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
    WHERE p.mailed_at IS NOT NULL AND (figures_org IS NULL OR p.org_id = figures_org)
    UNION ALL
    SELECT l.org_id, utc_month(l.created_at),
           figures_source_or_none(c.automation_id, c.origin, c.id), 0, 0, 0, 1, 0, 0
    FROM leads l LEFT JOIN campaigns c ON c.org_id = l.org_id AND c.id = l.campaign_id
    WHERE figures_org IS NULL OR l.org_id = figures_org
    UNION ALL
    SELECT v.org_id, utc_month(COALESCE(v.deal_date, v.created_at)), figures_source_or_none(c.automation_id, c.origin, c.id),
           0, 0, 0, 0, 1, COALESCE(v.deal_amount, 0)
    FROM conversions v LEFT JOIN campaigns c ON c.org_id = v.org_id AND c.id = v.campaign_id
    WHERE figures_org IS NULL OR v.org_id = figures_org
  ) counted
  GROUP BY org_id, month, source;
$$;
