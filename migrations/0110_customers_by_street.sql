-- Suppression compares a piece with the customers on its street (src/domain/same-home.ts): a
-- customer registered without its city or ZIP is still the same home. An address key is
-- "STREET, LOCALITY", so its street is the part before the first ", ".
CREATE INDEX customers_by_street ON customers (org_id, split_part(normalized_address, ', ', 1));
