-- Images of printed cards (issue 41): drawn once, the first time someone looks, then served from
-- here to every API process as immutable files. Only cards that went to the printer are kept:
-- their content no longer changes. Small: a 320 px thumbnail is ~15 KB, a 150 dpi side ~90 KB.
CREATE TABLE piece_images (
  org_id uuid NOT NULL,
  piece_id uuid NOT NULL,
  image text NOT NULL CHECK (image IN ('front', 'back', 'front_thumbnail', 'back_thumbnail')),
  png bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, piece_id, image),
  FOREIGN KEY (org_id, piece_id) REFERENCES mail_pieces (org_id, id) ON DELETE CASCADE
);
