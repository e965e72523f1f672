-- A home's pieces by its street (the part of the key before the first ", "), as customers are
-- found (0110): a piece keyed with a neighbourhood or borough ("6801 HOLLYWOOD BLVD, HOLLYWOOD CA
-- 90028") is none of the keys its home can be written as (keysOfSameHome), so attribution and the
-- frequency cap read the street's pieces and keep the home's with sameHome (src/domain/same-home.ts).
CREATE INDEX mail_pieces_by_street ON mail_pieces (org_id, split_part(normalized_address, ', ', 1), mailed_at DESC);
