-- A lead a member marked won in the app, and the same job later reported by the CRM, were two won
-- deals: Revenue and Overview counted the job twice (a contractor's walk: $9,000 counted as $18,000).
-- The app's won deal now names its lead (won_lead_id), and a CRM's deal credited to the same card
-- takes that row over (src/attribution/conversions.ts) instead of adding one: one job, the CRM's
-- amount and deal id, the lead still pointing at it. At most one won deal per lead, kept so by the
-- unique index, also when two marks of one lead race.
ALTER TABLE conversions ADD COLUMN won_lead_id uuid;

UPDATE conversions SET won_lead_id = substring(idempotency_key FROM 10)::uuid
WHERE starts_with(idempotency_key, 'app-lead:');

CREATE UNIQUE INDEX conversions_won_lead ON conversions (org_id, won_lead_id) WHERE won_lead_id IS NOT NULL;
