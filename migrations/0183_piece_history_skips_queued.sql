-- Every piece starts 'queued' at created_at, and the timeline reads that time from the piece itself
-- (buildTimeline), so the history row the INSERT trigger wrote for it doubled the write cost of
-- the hottest path (an event that queues a card) for nothing. Only a piece inserted straight into
-- another status (suppressed, skipped, held...) records that status; a piece released back to
-- 'queued' keeps created_at as its queued time, as before (the first entry wins).
CREATE OR REPLACE FUNCTION record_mail_piece_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status <> 'queued' AND (TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status) THEN
    INSERT INTO mail_piece_events (org_id, piece_id, status, provider_status, at)
    VALUES (NEW.org_id, NEW.id, NEW.status, NEW.provider_status,
            CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE COALESCE(NEW.status_updated_at, now()) END)
    ON CONFLICT DO NOTHING; END IF; RETURN NULL; END
$$;

DELETE FROM mail_piece_events WHERE status = 'queued';
