-- Each reactivation mailing is a source of its own in `monthly_mail_figures` (0334): the key was
-- 'reactivation' for every mailing sent from imported past jobs, so Revenue showed them all as one
-- row "Reactivation mailings", and a contractor who sent a spring and a fall mailing could not tell
-- which one earned the money. A reactivation campaign without an automation is now counted under
-- 'reactivation:<campaign id>'; the screen names the row by the campaign's name (campaigns are never
-- renamed, and the id keeps two mailings of one name apart). Automations keep their id, recorded
-- mail 'recorded', a lead without a campaign 'none'.
--
-- Writers of the counted tables wait until this commits (as rebuild_monthly_mail_figures does,
-- 0339), so no row is counted under the old key after the recount below.
LOCK TABLE mail_pieces, leads, conversions IN SHARE MODE;

CREATE FUNCTION figures_source(automation uuid, origin text, campaign uuid) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT COALESCE(automation::text,
                     CASE WHEN origin = 'reactivation' THEN 'reactivation:' || campaign::text ELSE 'recorded' END) $$;

CREATE OR REPLACE FUNCTION figures_source_or_none(automation uuid, origin text, campaign uuid) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT CASE WHEN campaign IS NULL THEN 'none' ELSE figures_source(automation, origin, campaign) END $$;

-- Every trigger of 0334, 0580 and 0650 asks this for a row's source, the recount asks
-- figures_source_or_none: both now give the mailing's own key.
CREATE OR REPLACE FUNCTION campaign_figures_source(campaign_org uuid, campaign uuid) RETURNS text LANGUAGE sql STABLE AS
  $$ SELECT COALESCE((SELECT figures_source(automation_id, origin, id) FROM campaigns
                      WHERE org_id = campaign_org AND id = campaign), 'none') $$;

-- Nothing may key a row 'reactivation' any more.
DROP FUNCTION figures_source(uuid, text);

-- The rows kept under 'reactivation' cannot be split by mailing: they are recounted from the
-- pieces, leads and conversions of the reactivation campaigns alone, as recount_monthly_mail_figures
-- (0650) counts them. Every other source's rows stay as they are.
DELETE FROM monthly_mail_figures WHERE source = 'reactivation';
INSERT INTO monthly_mail_figures
  (org_id, month, source, shard, cards_queued, cards_held_out, cards_mailed, leads, won_deals, revenue,
   cards_priced, cost_cents)
SELECT org_id, month, source, 0, sum(queued), sum(held_out), sum(mailed), sum(new_leads), sum(deals), sum(amount),
       sum(priced), sum(cents)
FROM (
  SELECT p.org_id, utc_month(CASE WHEN p.status = 'held_out' THEN COALESCE(p.status_updated_at, p.created_at) ELSE p.created_at END) AS month,
         figures_source_or_none(c.automation_id, c.origin, c.id) AS source,
         (p.status <> 'held_out')::int AS queued, (p.status = 'held_out')::int AS held_out,
         0 AS mailed, 0 AS new_leads, 0 AS deals, 0::numeric AS amount, 0 AS priced, 0::bigint AS cents
  FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
  WHERE c.origin = 'reactivation' AND c.automation_id IS NULL
  UNION ALL
  SELECT p.org_id, utc_month(p.mailed_at), figures_source_or_none(c.automation_id, c.origin, c.id), 0, 0, 1, 0, 0, 0,
         (p.cost_cents IS NOT NULL)::int, COALESCE(p.cost_cents, 0)::bigint
  FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
  WHERE c.origin = 'reactivation' AND c.automation_id IS NULL AND p.mailed_at IS NOT NULL
  UNION ALL
  SELECT l.org_id, utc_month(l.created_at), figures_source_or_none(c.automation_id, c.origin, c.id),
         0, 0, 0, 1, 0, 0, 0, 0
  FROM leads l JOIN campaigns c ON c.org_id = l.org_id AND c.id = l.campaign_id
  WHERE c.origin = 'reactivation' AND c.automation_id IS NULL
  UNION ALL
  SELECT v.org_id, utc_month(COALESCE(v.deal_date, v.created_at)), figures_source_or_none(c.automation_id, c.origin, c.id),
         0, 0, 0, 0, 1, COALESCE(v.deal_amount, 0), 0, 0
  FROM conversions v JOIN campaigns c ON c.org_id = v.org_id AND c.id = v.campaign_id
  WHERE c.origin = 'reactivation' AND c.automation_id IS NULL
) counted
GROUP BY org_id, month, source;
