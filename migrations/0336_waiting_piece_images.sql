-- Images of cards still waiting (held, awaiting approval, capped, scheduled; issue 41), drawn ahead
-- of the first look and kept beside the printed cards' images. A waiting card follows its
-- organization's profile and its campaign's template, so its image is kept with `card_key`, a
-- SHA-256 of everything drawn on it (src/pieces/card-key.ts): served while the card composed now
-- has the same key, drawn again when not. NULL: a printed card's image, which never changes.
ALTER TABLE piece_images ADD COLUMN card_key text;
