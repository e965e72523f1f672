-- How many events of each type an organization's CRM sent: the samples keep the newest 25 only, so
-- their count read 25 for any busy type (Overview: "estimate.sent (25 received)" after 60 events).
-- Counted where the ring's cursor is advanced, in the same statement; before this, the samples kept.
ALTER TABLE event_sample_cursors ADD COLUMN received bigint NOT NULL DEFAULT 0;
UPDATE event_sample_cursors c
   SET received = (SELECT count(*) FROM event_samples s WHERE s.org_id = c.org_id AND s.event_type = c.event_type);
