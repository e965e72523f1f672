-- Lead deliveries are capped per organization (maxRunningPerOrg, src/jobs/queue.ts claimPerOrg):
-- a claim steps from one org with deliveries waiting to the next, counts the org's running ones and
-- reads its oldest due ones in this index's order, so one org's backlog of thousands is never
-- walked. Partial on the kind (the claim names it as a literal): mail jobs do not pay for it.
CREATE INDEX jobs_deliveries_by_org ON jobs (org_id, status, run_at, created_at, id)
  WHERE kind = 'deliver_lead' AND status IN ('pending', 'running');
