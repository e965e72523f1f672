-- Event samples as a ring of 25 slots per (org, event type). Before, every live event inserted a
-- sample and a windowed DELETE trimmed the type back to the newest 25: that read and sorted the
-- type's rows (and their dead versions) on every batch, and cost more the longer the service ran.
-- Now an event overwrites the slot after the type's newest one: one upsert, no read of the ring,
-- and an update that touches no indexed column stays on its page (HOT, fillfactor 50).
ALTER TABLE event_samples ADD COLUMN slot smallint;
-- Keep each type's newest 25 and number them oldest first, so the ring's next slot is the count.
DELETE FROM event_samples e USING (
  SELECT org_id, id, row_number() OVER (PARTITION BY org_id, event_type ORDER BY received_at DESC, id DESC) AS age
  FROM event_samples
) ranked
WHERE e.org_id = ranked.org_id AND e.id = ranked.id AND ranked.age > 25;
UPDATE event_samples e SET slot = ranked.slot FROM (
  SELECT org_id, id, row_number() OVER (PARTITION BY org_id, event_type ORDER BY received_at, id) - 1 AS slot
  FROM event_samples
) ranked
WHERE e.org_id = ranked.org_id AND e.id = ranked.id;
ALTER TABLE event_samples ALTER COLUMN slot SET NOT NULL;
ALTER TABLE event_samples ADD CONSTRAINT event_samples_slot_range CHECK (slot >= 0 AND slot < 25);
ALTER TABLE event_samples DROP CONSTRAINT event_samples_pkey;
DROP INDEX event_samples_type;
ALTER TABLE event_samples ADD PRIMARY KEY (org_id, event_type, slot);
ALTER TABLE event_samples SET (fillfactor = 50);

-- The slot the next sample of each (org, event type) takes; advanced in the same statement that
-- writes the samples, so concurrent writers of one type queue on this row and never share a slot.
CREATE TABLE event_sample_cursors (
  org_id uuid NOT NULL REFERENCES organizations (id),
  event_type text NOT NULL,
  next_slot smallint NOT NULL CHECK (next_slot >= 0 AND next_slot < 25),
  PRIMARY KEY (org_id, event_type)
) WITH (fillfactor = 50);
INSERT INTO event_sample_cursors (org_id, event_type, next_slot)
SELECT org_id, event_type, count(*) % 25 FROM event_samples GROUP BY org_id, event_type;
