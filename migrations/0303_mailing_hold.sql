-- The organization's hold window for cards no automation sends (reactivation mailings), in
-- minutes: they wait in `held` this long and can be cancelled (issue 39). 0: no hold.
ALTER TABLE org_mail_safety ADD COLUMN mailing_hold_minutes integer NOT NULL DEFAULT 0
  CHECK (mailing_hold_minutes >= 0);
