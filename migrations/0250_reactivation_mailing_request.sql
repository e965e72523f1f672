-- A reactivation mailing's request id (the app makes one per New mailing form): a second send with
-- the same id (a double click, a retry after a lost answer) answers the first mailing instead of
-- mailing every home again.
ALTER TABLE reactivation_mailings ADD COLUMN request_id uuid;
CREATE UNIQUE INDEX reactivation_mailings_request ON reactivation_mailings (org_id, request_id)
  WHERE request_id IS NOT NULL;
