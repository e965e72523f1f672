-- The app's customers CSV upload keeps each upload's request id (the app makes one per chosen
-- file) with its answer: a retry after a lost answer replays the first answer instead of
-- registering the file again and reporting its addresses as not new.
CREATE TABLE customer_uploads (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  request_id uuid NOT NULL,
  added integer NOT NULL,
  total integer NOT NULL,
  row_count integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, request_id)
);
