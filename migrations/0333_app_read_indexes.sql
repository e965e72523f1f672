-- Reads of the contractor's app at a million cards (issue 41, bench scenario app-at-scale):
-- a piece's page reads its leads and conversions by piece (any lead source), and Overview's
-- attention list counts the last 30 days' failed and undeliverable cards, which are few: without
-- these, each read scanned all of the organization's leads, conversions or pieces.
CREATE INDEX leads_by_piece ON leads (org_id, piece_id) WHERE piece_id IS NOT NULL;
CREATE INDEX conversions_by_piece ON conversions (org_id, piece_id) WHERE piece_id IS NOT NULL;
CREATE INDEX mail_pieces_stopped_recently ON mail_pieces (org_id, status, (COALESCE(status_updated_at, created_at)))
  WHERE status IN ('failed', 'undeliverable');
