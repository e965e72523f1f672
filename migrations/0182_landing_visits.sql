-- Landing-page visits (issue 28: Overview and Revenue count them): one counter per piece and UTC
-- month, bumped on every view of a piece's open landing page (not the not-found page).
CREATE TABLE landing_visits (
  org_id uuid NOT NULL,
  piece_id uuid NOT NULL,
  month date NOT NULL,
  visits integer NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, piece_id, month)
);
CREATE INDEX landing_visits_month ON landing_visits (org_id, month);
