-- Holdouts (issue 42): an automation keeps this share of homes out of its mail (0 to 50 %), so
-- Revenue can compare the homes that got the card with the homes that did not.
ALTER TABLE automations ADD COLUMN holdout_percent smallint NOT NULL DEFAULT 0
  CONSTRAINT automations_holdout_percent_check CHECK (holdout_percent BETWEEN 0 AND 50);

-- A won deal is matched to the held-out pieces at its home (attribution/holdout-conversions.ts).
CREATE INDEX mail_pieces_held_out ON mail_pieces (org_id, normalized_address) WHERE status = 'held_out';

-- A won deal at a held-out home, per automation that held it out: counted for the experiment
-- only, never as attributed revenue (conversions holds only deals matched to mailed pieces).
CREATE TABLE holdout_conversions (
  org_id uuid NOT NULL,
  idempotency_key text NOT NULL,
  automation_id uuid NOT NULL,
  piece_id uuid NOT NULL,
  deal_amount numeric,
  deal_date timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, idempotency_key, automation_id)
);
CREATE INDEX holdout_conversions_by_automation ON holdout_conversions (org_id, automation_id, deal_date);
