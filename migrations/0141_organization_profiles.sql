-- The contractor's profile (issue 27: Settings), used on every card and landing page: how to
-- reach the business, the return address printed on the card back, its logo (stored re-encoded
-- as PNG, never as uploaded), brand colour, cost per card (ROI) and the offer line it writes.
CREATE TABLE organization_profiles (
  org_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  business_name text,
  phone text,
  website text,
  return_street text,
  return_city text,
  return_state text,
  return_postal_code text,
  brand_color text,
  cost_per_card_cents integer,
  offer text,
  logo_png bytea,
  logo_updated_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
