-- The key a first start makes for its demo organization (src/bootstrap.ts) is a sample printed on the
-- console, not a key the contractor asked for: the Overview's first-run checklist does not count it
-- (src/reports/first-steps.ts). A key made before this column is that key when it is the demo
-- organization's and carries the name the first start gives it.
ALTER TABLE api_keys ADD COLUMN demo boolean NOT NULL DEFAULT false;
UPDATE api_keys SET demo = true
WHERE name = 'demo'
  AND org_id IN (SELECT id FROM organizations WHERE name = 'Demo Contractor' AND billing_owner);
