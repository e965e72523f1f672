-- When the owners were told that this cap held a piece this month (mail safety, issue 29): once per cap and month.
ALTER TABLE mail_cap_usage ADD COLUMN owners_notified_at timestamptz;
