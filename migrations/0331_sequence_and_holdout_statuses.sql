-- Sequences and holdouts (issue 42): `scheduled` is a follow-up card waiting for its day;
-- `held_out` is a home kept out of an automation's mail to measure lift (never printed).
ALTER TABLE mail_pieces DROP CONSTRAINT mail_pieces_status_check;
ALTER TABLE mail_pieces ADD CONSTRAINT mail_pieces_status_check
  CHECK (status IN ('queued', 'submitted', 'mailed', 'in_transit', 'delivered', 'returned', 'suppressed', 'failed',
                    'skipped', 'held', 'awaiting_approval', 'capped', 'cancelled', 'undeliverable',
                    'scheduled', 'held_out'));
