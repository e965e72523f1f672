-- When an automation's holdout was last turned on (its percent raised from 0): Revenue's comparison
-- of mailed and held-out homes starts there, not at the first home the draw happened to hold out
-- (the homes mailed before that one were drawn too, and left out they took the automation's own
-- won deals out of the comparison). Automations from before this keep NULL: their comparison starts
-- at their first held-out home, as it did (when their holdout was turned on is not known).
ALTER TABLE automations ADD COLUMN holdout_since timestamptz;
