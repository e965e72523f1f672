-- The app's customers CSV upload says how many cards waiting to be mailed to its homes it stopped
-- (awaiting approval, held, over a cap, or follow-ups scheduled for a later day), as the one-address
-- form does; a retry with the same request id replays that count with the upload's other counts.
-- Uploads recorded before this column replay 0: their answers never said it.
ALTER TABLE customer_uploads ADD COLUMN stopped_cards integer NOT NULL DEFAULT 0;
