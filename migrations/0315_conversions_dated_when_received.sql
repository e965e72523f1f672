-- A won deal reported without a close date is dated when it was received (issue 39): new ones
-- store that time; the ones recorded before carry their creation time, so no deal shows undated.
UPDATE conversions SET deal_date = created_at WHERE deal_date IS NULL;
