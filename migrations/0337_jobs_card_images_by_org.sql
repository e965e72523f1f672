-- The draw-ahead sweep (draw_waiting_cards) runs one at a time per organization (maxRunningPerOrg,
-- src/jobs/queue.ts claimPerOrg), claimed org by org in this index's order, as lead deliveries are
-- (0090). Partial on the kind: other jobs do not pay for it.
CREATE INDEX jobs_card_images_by_org ON jobs (org_id, status, run_at, created_at, id)
  WHERE kind = 'draw_waiting_cards' AND status IN ('pending', 'running');
