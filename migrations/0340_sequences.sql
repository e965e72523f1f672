-- Sequences (issue 42): an automation may mail up to three follow-up cards after its first, each
-- `delay_days` after the first card's mailing with a template of its own, and stops them when the
-- home answers (`stop_when`: lead, won_deal, opt_out, customer, returned).
ALTER TABLE automations ADD COLUMN steps jsonb NOT NULL DEFAULT '[]';
ALTER TABLE automations ADD COLUMN stop_when jsonb NOT NULL
  DEFAULT '["lead", "won_deal", "opt_out", "customer", "returned"]';

-- A follow-up card is a piece of the first card's campaign: its step (1-3), the sequence's first
-- card, and the day it is due (`scheduled_for`, counted from the first card's mailing once known).
ALTER TABLE mail_pieces ADD COLUMN sequence_step smallint CHECK (sequence_step BETWEEN 1 AND 3);
ALTER TABLE mail_pieces ADD COLUMN sequence_first_piece_id uuid;
ALTER TABLE mail_pieces ADD COLUMN scheduled_for timestamptz;
-- One follow-up per step of a first card (a retried job schedules nothing twice); also the way from
-- a first card to its follow-ups when the home answers.
CREATE UNIQUE INDEX mail_pieces_sequence ON mail_pieces (org_id, sequence_first_piece_id, sequence_step)
  WHERE sequence_first_piece_id IS NOT NULL;
