-- A follow-up card names its step by the step's delay (days after the first card), not by its
-- position in the automation's steps: removing step 1 made follow-up 1 print step 2's card on step
-- 1's day, and a changed delay re-sorted the steps under the pieces already scheduled. A step whose
-- delay is no longer among the automation's steps is gone, and its follow-up stops
-- (src/pieces/follow-ups.ts). Follow-ups written before take the delay their position holds now.
ALTER TABLE mail_pieces ADD COLUMN sequence_step_delay smallint;

UPDATE mail_pieces p SET sequence_step_delay = (a.steps -> (p.sequence_step - 1) ->> 'delay_days')::smallint
FROM campaigns c, automations a
WHERE p.sequence_step IS NOT NULL AND c.org_id = p.org_id AND c.id = p.campaign_id
  AND a.org_id = c.org_id AND a.id = c.automation_id;
