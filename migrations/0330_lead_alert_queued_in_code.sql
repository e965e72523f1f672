-- A landing-page lead's alert job is queued by leads/capture.ts through the job catalog, in the
-- lead's own transaction (issue 38): the trigger of migrations 0181 and 0302 goes.
DROP TRIGGER IF EXISTS lead_alert_on_landing_lead ON leads;
DROP FUNCTION IF EXISTS enqueue_lead_alert();
