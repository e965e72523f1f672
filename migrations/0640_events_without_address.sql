-- An event whose record named no address reached a bound automation and made no card (`no_address`),
-- and the app never said so: a contractor whose CRM drops the address on some jobs never learned
-- those homes got no card (only the raw sample showed the record). Counted per event type where the
-- type's events are counted (0560), with the newest's time, and marked on its sample, so Overview and
-- the event samples can say it. Written with the samples, behind the request: no write of its own.
ALTER TABLE event_sample_cursors ADD COLUMN received_without_address bigint NOT NULL DEFAULT 0;
ALTER TABLE event_sample_cursors ADD COLUMN last_without_address_at timestamptz;
ALTER TABLE event_samples ADD COLUMN without_address boolean NOT NULL DEFAULT false;
