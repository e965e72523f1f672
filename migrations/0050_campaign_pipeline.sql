-- The campaign pipeline (issue 9): a queued piece is rendered and handed to a print provider.
-- 'submitted': the provider (Lob) accepted the piece and will print it; its tracking webhooks
-- then move it to mailed, in_transit, delivered or returned. The local provider marks it mailed.
ALTER TABLE mail_pieces DROP CONSTRAINT mail_pieces_status_check;
ALTER TABLE mail_pieces ADD CONSTRAINT mail_pieces_status_check
  CHECK (status IN ('queued', 'submitted', 'mailed', 'in_transit', 'delivered', 'returned', 'suppressed', 'failed'));
-- The job that took the piece for submission: a second job for the same piece never submits it,
-- while a retry of the same job resubmits under the same provider idempotency key.
ALTER TABLE mail_pieces ADD COLUMN submission_job_id uuid;
-- Why a piece is suppressed or failed, in words an operator can act on.
ALTER TABLE mail_pieces ADD COLUMN status_reason text;
-- The provider's own status word (Lob's last tracking event type).
ALTER TABLE mail_pieces ADD COLUMN provider_status text;
ALTER TABLE mail_pieces ADD COLUMN status_updated_at timestamptz;
-- Tracking webhooks find the piece by the provider's id.
CREATE INDEX mail_pieces_provider_id ON mail_pieces (provider, provider_id) WHERE provider_id IS NOT NULL;
-- The operator's failed-jobs view, newest first.
CREATE INDEX jobs_failed ON jobs (updated_at DESC) WHERE status = 'failed';
