-- A double submit of a landing form (two identical posts at once: a double click) captures one
-- lead: a landing-page lead records the fingerprint of its submission (sha256 of the validated
-- content, src/services/leads/submission.ts), unique per mailed piece, and an identical post
-- answers the lead already captured (ON CONFLICT in src/services/leads/capture.ts), with no new
-- delivery. Leads captured before this migration, and crm_sync leads, have none (NULL stays
-- distinct). No backfill: earlier duplicates would break the index.
ALTER TABLE leads ADD COLUMN submission_fingerprint text;
CREATE UNIQUE INDEX leads_landing_submission ON leads (org_id, piece_id, submission_fingerprint)
  WHERE submission_fingerprint IS NOT NULL;
