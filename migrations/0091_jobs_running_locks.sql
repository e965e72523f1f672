-- Every claim first fails the jobs whose last try died with its worker (src/jobs/queue.ts
-- failAbandonedJobs): running jobs with an expired lock. Only running jobs are in this index, so
-- that check no longer reads every pending job of a backlog (15k rows for a 10k-job backlog).
CREATE INDEX jobs_running_locks ON jobs (locked_until) WHERE status = 'running';
