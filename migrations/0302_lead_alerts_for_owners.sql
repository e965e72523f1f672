-- Lead alerts reach owners by default (issue 39): an owner who never chose gets them, a member
-- who never chose does not; a member's own choice (either way) decides for them.
CREATE OR REPLACE FUNCTION enqueue_lead_alert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM lead_alert_preferences WHERE org_id = NEW.org_id AND enabled)
     OR EXISTS (SELECT 1 FROM org_members m WHERE m.org_id = NEW.org_id AND m.role = 'owner'
                  AND NOT EXISTS (SELECT 1 FROM lead_alert_preferences p
                                  WHERE p.org_id = m.org_id AND p.user_id = m.user_id)) THEN
    INSERT INTO jobs (id, org_id, kind, payload, max_attempts, run_at, created_at, updated_at)
    VALUES (md5('lead_alert:' || NEW.id::text)::uuid, NEW.org_id, 'lead_alert',
            jsonb_build_object('org_id', NEW.org_id, 'lead_id', NEW.id), 5, NEW.created_at, NEW.created_at, NEW.created_at)
    ON CONFLICT (id) DO NOTHING; PERFORM pg_notify('jobs_ready', ''); END IF; RETURN NULL; END
$$;

-- A landing-page lead is new until a member opens it in the app; Overview lists the new ones.
ALTER TABLE leads ADD COLUMN opened_at timestamptz;
CREATE INDEX leads_unopened ON leads (org_id, created_at DESC) WHERE opened_at IS NULL AND source = 'landing_page';
