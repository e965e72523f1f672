-- Finished jobs are deleted once past their retention (src/jobs/pruning.ts): 7 days for done,
-- 30 for failed. Each pruning batch reads the oldest finished jobs of one status in this order
-- instead of scanning a table of millions.
CREATE INDEX jobs_finished ON jobs (status, updated_at) WHERE status IN ('done', 'failed');
