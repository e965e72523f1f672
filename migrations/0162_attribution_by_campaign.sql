-- "By source job" (src/neighbours/neighbour-jobs.ts) counts each neighbour campaign's leads and
-- won deals: by campaign, not by scanning the org's every lead and conversion.
CREATE INDEX leads_by_campaign ON leads (org_id, campaign_id) WHERE campaign_id IS NOT NULL;
CREATE INDEX conversions_by_campaign ON conversions (org_id, campaign_id);
