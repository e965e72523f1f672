-- A piece queued by an event gets its address key (normalized_address) from the pipeline, not
-- on the request: parsing the address was the largest single cost of POST /api/v1/events. The
-- key matters only from mailing on (attribution matches mailed pieces; suppression runs first in
-- the pipeline), and the pipeline writes it before either. Mailing history still sets it at once.
ALTER TABLE mail_pieces ALTER COLUMN normalized_address DROP NOT NULL;
