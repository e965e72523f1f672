-- The card a person approved, pinned when they approve it: an approved card waiting for a cap, the
-- kill switch or the printer printed the template as it was when it printed, so an edit made after
-- the approval went out unapproved (pieces/card-template-sql.ts reads this first). Cards approved
-- before keep printing the current template, as they did.
ALTER TABLE mail_pieces ADD COLUMN approved_template jsonb;
