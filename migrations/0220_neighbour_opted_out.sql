-- Neighbour campaigns now leave out homes on the org's do-not-mail list when choosing (they were
-- chosen, then suppressed by the pipeline); the record counts them apart from customers.
ALTER TABLE neighbour_campaigns ADD COLUMN excluded_opted_out integer NOT NULL DEFAULT 0;
