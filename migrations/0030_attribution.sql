-- Attribution: "does the matched piece have a landing-page lead" (direct vs indirect) is one
-- index probe, and the operator's lead list (all sources, newest first) is an index range.
CREATE INDEX leads_piece_landing ON leads (org_id, piece_id) WHERE source = 'landing_page' AND piece_id IS NOT NULL;
CREATE INDEX leads_created ON leads (org_id, created_at DESC);
-- Tracking leads collapse onto a landing-page lead at the same normalized address.
CREATE INDEX leads_address_landing ON leads (org_id, normalized_address, created_at DESC)
  WHERE source = 'landing_page' AND normalized_address IS NOT NULL;
