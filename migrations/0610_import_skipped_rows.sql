-- The rows of a batch that were not staged (no address, or not found on the map), each with its
-- row number, the file's line for an app upload, what it said and why: a contractor whose upload
-- of 500 past jobs staged 480 could see only "20 skipped", not which. At most 500 per batch (the
-- batch's own limit). Batches from before this keep NULL: their skipped rows were not kept.
ALTER TABLE imports ADD COLUMN skipped_rows jsonb;
