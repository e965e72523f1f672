-- Customers uploaded from a CSV in the app before the upload stored source csv_upload were stored as
-- app, like the one-address form's, so the Customers screen says "Added here" for them. An upload
-- with a request id (the app's form sends one with every file since migration 0260) inserted its new
-- customers and its customer_uploads row in one transaction, and both columns default to now(), the
-- transaction's start: the customers of source app created at exactly an upload's created_at are
-- the ones that upload added. An upload is relabelled only when it matches exactly as many of them
-- as it recorded adding (customer_uploads.added), so a customer typed by hand is never relabelled.
-- Uploads without a request id, or before migration 0260, left no record and stay app.
UPDATE customers c SET source = 'csv_upload'
FROM customer_uploads u
WHERE c.org_id = u.org_id AND c.created_at = u.created_at AND c.source = 'app'
  AND u.added = (
    SELECT count(*) FROM customers m
    WHERE m.org_id = u.org_id AND m.created_at = u.created_at AND m.source = 'app'
  );
