-- Homes the organization served are never in a neighbour audience (issue 39): the neighbour
-- campaign keeps the key of the job's own home, and imported past jobs are looked up by home.
ALTER TABLE neighbour_campaigns ADD COLUMN home_key text;
CREATE INDEX neighbour_campaigns_home ON neighbour_campaigns (org_id, home_key) WHERE home_key IS NOT NULL;
CREATE INDEX import_rows_address ON import_rows (org_id, normalized_address);
