-- The nearest-homes query reads the K nearest homes through a GiST index on a built-in point
-- (longitude, latitude in degrees; no extension, the same on PGlite and PostgreSQL) instead of
-- every home of the circle's bounding box through the latitude bands. `<->` on it measures
-- degrees, not metres: src/neighbours/reference-addresses.ts ranks the candidates by exact
-- haversine distance and fetches more when the K-th could be beaten by a home not yet read.
ALTER TABLE reference_addresses ADD COLUMN lonlat point GENERATED ALWAYS AS (point(longitude, latitude)) STORED;
CREATE INDEX reference_addresses_lonlat ON reference_addresses USING gist (lonlat);
-- The latitude bands served only the box query.
ALTER TABLE reference_addresses DROP COLUMN lat_cell;
