-- The app's Mail screen (issue 28): a piece's tracking timeline needs the time it reached each
-- status, which mail_pieces overwrites. A trigger records the first time a piece enters each
-- status, whichever code path moved it (pipeline, mail safety, Lob's tracking webhook), using the
-- time that code wrote (status_updated_at, from the service's clock), so no path can forget it.
CREATE TABLE mail_piece_events (
  org_id uuid NOT NULL,
  piece_id uuid NOT NULL,
  status text NOT NULL,
  provider_status text,
  at timestamptz NOT NULL,
  PRIMARY KEY (org_id, piece_id, status)
);

CREATE FUNCTION record_mail_piece_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
    INSERT INTO mail_piece_events (org_id, piece_id, status, provider_status, at)
    VALUES (NEW.org_id, NEW.id, NEW.status, NEW.provider_status,
            CASE WHEN TG_OP = 'INSERT' THEN NEW.created_at ELSE COALESCE(NEW.status_updated_at, now()) END)
    ON CONFLICT DO NOTHING; END IF; RETURN NULL; END
$$;

CREATE TRIGGER mail_piece_status_history AFTER INSERT OR UPDATE OF status ON mail_pieces
  FOR EACH ROW EXECUTE FUNCTION record_mail_piece_status();

-- The Mail list: newest first per organization, keyset-paged by (created_at, id).
CREATE INDEX mail_pieces_created ON mail_pieces (org_id, created_at DESC, id DESC);
