-- Reactivation mailings (issue 28): a campaign the contractor sends from imported past jobs. It has
-- no automation, so it carries its own card; the pipeline reads the automation's template, else
-- the campaign's.
ALTER TABLE campaigns ADD COLUMN template jsonb;
ALTER TABLE campaigns DROP CONSTRAINT campaigns_origin_check;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_origin_check
  CHECK (origin IN ('event', 'trigger', 'mailing', 'reactivation'));

-- What a reactivation mailing was sent from and what its audience left out, as the app showed it.
CREATE TABLE reactivation_mailings (
  org_id uuid NOT NULL,
  campaign_id uuid NOT NULL,
  import_ids jsonb NOT NULL,
  filter jsonb NOT NULL,
  matched integer NOT NULL,
  queued integer NOT NULL,
  excluded_customers integer NOT NULL,
  excluded_opted_out integer NOT NULL,
  no_mailable_address integer NOT NULL,
  created_by text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, campaign_id)
);
