-- Reference addresses uploaded through the operator API (src/neighbours/address-uploads.ts):
-- one row per upload, its progress written as it loads, so the console can show it and a
-- process killed mid-load leaves a row the next start (or a stale heartbeat) marks failed.
CREATE TABLE reference_address_uploads (
  id uuid PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  format text CHECK (format IN ('csv', 'geojson')),
  bytes_received bigint NOT NULL DEFAULT 0,
  rows_read bigint NOT NULL DEFAULT 0,
  rows_added bigint NOT NULL DEFAULT 0,
  rows_present bigint NOT NULL DEFAULT 0,
  rows_rejected bigint NOT NULL DEFAULT 0,
  rejected_by_reason jsonb NOT NULL DEFAULT '{}'::jsonb,
  error text,
  created_at timestamptz NOT NULL,
  heartbeat_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX reference_address_uploads_newest ON reference_address_uploads (created_at DESC);

-- Homes loaded per ZIP, kept by every writer of reference_addresses in the statement that adds
-- them (rows are never removed), so the app can say which ZIPs are covered without counting a
-- table of millions of rows per request.
CREATE TABLE reference_address_zips (
  zip text PRIMARY KEY,
  homes bigint NOT NULL CHECK (homes >= 0)
);
INSERT INTO reference_address_zips (zip, homes)
SELECT zip, count(*) FROM reference_addresses WHERE zip <> '' GROUP BY zip;
