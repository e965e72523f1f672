-- Lead alerts (issue 28): each member of an organization chooses to get an email for every new
-- landing-page lead. One row per member who chose; no row means no alerts.
CREATE TABLE lead_alert_preferences (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  enabled boolean NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, user_id)
);

-- One row per alert email sent: the claim (INSERT ... ON CONFLICT DO NOTHING) that makes an alert
-- go once per lead and member, whichever worker process runs the job and however often it retries.
CREATE TABLE lead_alert_sends (
  org_id uuid NOT NULL,
  lead_id uuid NOT NULL,
  user_id text NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, lead_id, user_id)
);

-- Every landing-page lead of an org where someone wants alerts gets one lead_alert job, whatever
-- code path stored the lead. Its id is derived from the lead's, so the job is enqueued once.
CREATE FUNCTION enqueue_lead_alert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM lead_alert_preferences WHERE org_id = NEW.org_id AND enabled) THEN
    INSERT INTO jobs (id, org_id, kind, payload, max_attempts, run_at, created_at, updated_at)
    VALUES (md5('lead_alert:' || NEW.id::text)::uuid, NEW.org_id, 'lead_alert',
            jsonb_build_object('org_id', NEW.org_id, 'lead_id', NEW.id), 5, NEW.created_at, NEW.created_at, NEW.created_at)
    ON CONFLICT (id) DO NOTHING; PERFORM pg_notify('jobs_ready', ''); END IF; RETURN NULL; END
$$;

CREATE TRIGGER lead_alert_on_landing_lead AFTER INSERT ON leads
  FOR EACH ROW WHEN (NEW.source = 'landing_page') EXECUTE FUNCTION enqueue_lead_alert();
