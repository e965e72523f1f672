-- A lead the contractor marked won in the app (Leads → a lead → Job won): the close day and the job's
-- amount as the contractor gave them, and when it was first marked. The won deal itself is a
-- conversion keyed `deal:lead:<lead id>` (src/attribution/lead-won.ts), which Revenue counts when a
-- card reached the home; these columns keep the lead's own answer when no card is credited.
ALTER TABLE leads ADD COLUMN won_on date;
ALTER TABLE leads ADD COLUMN won_amount numeric;
ALTER TABLE leads ADD COLUMN won_at timestamptz;
-- Before a lead is marked won, its page names the won deals Revenue already has at its home (a
-- CRM's report of the same job would be counted twice): one probe of the home's key.
CREATE INDEX conversions_by_address ON conversions (org_id, normalized_address);
