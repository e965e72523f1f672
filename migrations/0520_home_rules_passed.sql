-- When a piece passed its home's rules (customers, do-not-mail, the frequency cap), set under the
-- home's lock in the same transaction that read them: a card to the home decided a moment ago
-- (still queued while it is verified, located and drawn) is seen by the next card's rules, which
-- then wait for it instead of passing too. Two automations' cards of one event share `created_at`,
-- and were told apart by id alone: on PostgreSQL both could pass and print (pieces/process-piece.ts).
ALTER TABLE mail_pieces ADD COLUMN home_rules_passed_at timestamptz;
