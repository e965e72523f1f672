-- Reference addresses (src/neighbours/): every mailable home of the deployment with its point,
-- loaded from OpenAddresses files. Deployment-wide, not per organization: the same county serves
-- every contractor. One row per address key (the suppression/attribution key), so loading a file
-- twice adds nothing.
CREATE TABLE reference_addresses (
  normalized_address text PRIMARY KEY,
  street text NOT NULL,
  city text NOT NULL DEFAULT '',
  state text NOT NULL DEFAULT '',
  zip text NOT NULL DEFAULT '',
  latitude double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
  longitude double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
  -- A 0.01° band of latitude (~1.1 km). The nearest-homes query seeks each band its search box
  -- touches and reads the box's longitude range within it: a plain btree that PGlite and
  -- PostgreSQL both have (no PostGIS, cube or earthdistance extension to install).
  lat_cell integer GENERATED ALWAYS AS (floor(latitude * 100)::integer) STORED
);
CREATE INDEX reference_addresses_cell ON reference_addresses (lat_cell, longitude);
-- The record's own home is found by its street (its key may carry less of the locality).
CREATE INDEX reference_addresses_by_street ON reference_addresses (split_part(normalized_address, ', ', 1));
