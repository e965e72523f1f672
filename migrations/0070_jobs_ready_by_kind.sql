-- Lead deliveries are claimed before mail work (src/jobs/queue.ts): a claim by kind must find its
-- due jobs without walking a backlog of tens of thousands of other kinds' rows.
CREATE INDEX jobs_ready_by_kind ON jobs (kind, run_at) WHERE status IN ('pending', 'running');
