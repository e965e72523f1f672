-- Target URLs are stored without their #fragment (never sent on the wire): URLs that differed only
-- by it were separate subscriptions, so one lead reached one endpoint once per variant. Each group
-- of variants keeps one row, the one stored without a fragment, else the oldest, and that row's
-- URL loses its fragment. (A normalized URL's first '#' starts its fragment: an earlier one would
-- have been percent-encoded.)
DELETE FROM subscriptions variant
USING subscriptions kept
WHERE variant.target_url LIKE '%#%'
  AND kept.org_id = variant.org_id AND kept.event = variant.event AND kept.id <> variant.id
  AND split_part(kept.target_url, '#', 1) = split_part(variant.target_url, '#', 1)
  AND (kept.target_url NOT LIKE '%#%' OR (kept.created_at, kept.id) < (variant.created_at, variant.id));

UPDATE subscriptions SET target_url = split_part(target_url, '#', 1) WHERE target_url LIKE '%#%';
