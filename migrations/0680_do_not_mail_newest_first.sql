-- The app's do-not-mail download (customers/app-customers.ts, doNotMailCsv) reads an org's opt-outs
-- newest first, a page at a time, after a (created_at, normalized_address) keyset: with only the
-- primary key, each page read and sorted all of the org's opt-outs. This index hands each page its
-- rows in order from the last page's position (scanned backwards).
CREATE INDEX do_not_mail_by_created ON do_not_mail (org_id, created_at, normalized_address);
