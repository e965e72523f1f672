-- A worker's claim of due jobs (src/jobs/queue.ts) as a function, for one reason: its planner
-- settings. The claim reads the oldest due jobs in run_at order and stops after `p_limit`; the
-- jobs_ready index walks them in that order at any queue length. But the planner judges by the
-- table's statistics, and a queue's are wrong whenever it matters: the embedded database has no
-- autovacuum (statistics only every few minutes, none in a new process's first minutes), and a
-- burst of CRM events turns a table of finished jobs into thousands of pending ones between two
-- ANALYZEs. Estimating a handful of due rows, the planner read every pending job through a bitmap
-- scan and sorted them: 30-60 ms per claim with ~20 k jobs queued, on PGlite's one connection,
-- with every request waiting behind it. Without bitmap scans and explicit sorts the only plan left
-- is the ordered index walk (an incremental sort orders equal run_at by created_at): under 1 ms,
-- whatever the statistics say. SET on a function applies while it runs only.
CREATE FUNCTION claim_due_jobs(p_kinds text[], p_timeouts integer[], p_now timestamptz, p_limit integer)
RETURNS TABLE (id uuid, org_id uuid, kind text, payload jsonb, attempts integer, max_attempts integer)
LANGUAGE sql
SET enable_bitmapscan = off
SET enable_sort = off
AS $$
  WITH due AS (
    SELECT jobs.id FROM jobs
    WHERE jobs.kind = ANY (p_kinds)
      AND ((jobs.status = 'pending' AND jobs.run_at <= p_now)
        OR (jobs.status = 'running' AND jobs.locked_until <= p_now AND jobs.attempts < jobs.max_attempts))
    ORDER BY jobs.run_at, jobs.created_at
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), timeouts AS (
    SELECT * FROM unnest(p_kinds, p_timeouts) AS t(kind, seconds)
  )
  UPDATE jobs SET
    status = 'running',
    attempts = jobs.attempts + 1,
    locked_until = p_now + make_interval(secs => timeouts.seconds),
    updated_at = p_now
  FROM due, timeouts
  WHERE jobs.id = due.id AND timeouts.kind = jobs.kind
  RETURNING jobs.id, jobs.org_id, jobs.kind, jobs.payload, jobs.attempts, jobs.max_attempts
$$;
