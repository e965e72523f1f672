-- Address verification before print (issue 39): a card whose address no carrier can deliver is
-- `undeliverable` (never rendered, printed or counted in caps), with the reason in words.
ALTER TABLE mail_pieces DROP CONSTRAINT mail_pieces_status_check;
ALTER TABLE mail_pieces ADD CONSTRAINT mail_pieces_status_check
  CHECK (status IN ('queued', 'submitted', 'mailed', 'in_transit', 'delivered', 'returned', 'suppressed', 'failed',
                    'skipped', 'held', 'awaiting_approval', 'capped', 'cancelled', 'undeliverable'));
-- The address the card is printed with, once verified (the verifier's standardised form when it
-- gives one): {line1, line2, city, state, zip}. Null until verified; a verified piece is not
-- verified again when it comes back from a hold window, an approval or a cap.
ALTER TABLE mail_pieces ADD COLUMN verified_address jsonb;

-- How strictly an organization's addresses are checked before print.
ALTER TABLE org_mail_safety ADD COLUMN address_verification text NOT NULL DEFAULT 'normal'
  CHECK (address_verification IN ('strict', 'normal', 'relaxed'));
