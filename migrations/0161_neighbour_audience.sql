-- An automation's audience (src/neighbours/audience.ts): NULL is the record's home, as before;
-- {"type":"neighbours","count":K,"radius_m":R} mails the K nearest reference addresses instead.
ALTER TABLE automations ADD COLUMN audience jsonb;

-- One row per neighbour campaign: the job it came from (its street and city only, never the
-- customer's name or house number), what was chosen and excluded, and why nothing was, if so.
-- The source of "by source job" attribution.
CREATE TABLE neighbour_campaigns (
  org_id uuid NOT NULL REFERENCES organizations (id),
  campaign_id uuid NOT NULL,
  automation_id uuid,
  job_street text NOT NULL,
  job_city text NOT NULL,
  latitude double precision NOT NULL,
  longitude double precision NOT NULL,
  count integer NOT NULL,
  radius_m integer NOT NULL,
  homes_mailed integer NOT NULL DEFAULT 0,
  excluded_customers integer NOT NULL DEFAULT 0,
  excluded_recently_mailed integer NOT NULL DEFAULT 0,
  reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, campaign_id)
);
CREATE INDEX neighbour_campaigns_by_automation ON neighbour_campaigns (org_id, automation_id, created_at DESC);

-- The frequency window looks up pieces by home whether or not they are mailed yet.
CREATE INDEX mail_pieces_address_created ON mail_pieces (org_id, normalized_address, created_at DESC);
