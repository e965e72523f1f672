-- A card costs what it cost when it was mailed. Revenue and Overview priced every card ever mailed
-- at today's "Cost per card": a contractor who raised it from $0.85 to $1.10 saw last spring's
-- mail cost more and its return on spend fall, while the mail safety's own figures (counted at the
-- claim, mail_cap_usage) kept the old price, so two boxes on one screen disagreed (walk, 2026-12-07).
--
-- A piece keeps the organization's cost per card from the moment it goes to print (`cost_cents`, set
-- by the BEFORE triggers below when it is handed to the printer or mailed, whichever code path
-- writes it; null when no cost was set then),
-- and the monthly figures count the priced cards and their cents beside all the cards mailed.
-- Cards mailed without a price of their own (before this migration, or while no cost was set) count
-- at `organization_profiles.unpriced_cards_cost_cents`: the cost the screens showed for them when
-- the cost first changed (the cost until then, or the first one set), so setting a cost for the
-- first time prices the mail already sent, and no later change moves it. It starts as today's cost.
ALTER TABLE mail_pieces ADD COLUMN cost_cents integer;
ALTER TABLE organization_profiles ADD COLUMN unpriced_cards_cost_cents integer;
UPDATE organization_profiles SET unpriced_cards_cost_cents = cost_per_card_cents;
ALTER TABLE monthly_mail_figures
  ADD COLUMN cards_priced bigint NOT NULL DEFAULT 0,
  ADD COLUMN cost_cents bigint NOT NULL DEFAULT 0;

CREATE FUNCTION price_card_when_mailed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.cost_cents := (SELECT cost_per_card_cents FROM organization_profiles WHERE org_id = NEW.org_id);
  RETURN NEW;
END
$$;

-- Only a row being mailed runs the function (the WHEN clause is evaluated without calling it).
CREATE TRIGGER mail_piece_priced_on_insert BEFORE INSERT ON mail_pieces FOR EACH ROW
  WHEN (NEW.mailed_at IS NOT NULL AND NEW.cost_cents IS NULL)
  EXECUTE FUNCTION price_card_when_mailed();
-- Priced when handed to the printer ('submitted': Lob says it is mailed days later), as the monthly
-- caps count it then (mail_cap_usage), or when mailed without that step: one price in both boxes.
CREATE TRIGGER mail_piece_priced_on_mailing BEFORE UPDATE ON mail_pieces FOR EACH ROW
  WHEN (NEW.cost_cents IS NULL
        AND ((OLD.mailed_at IS NULL AND NEW.mailed_at IS NOT NULL)
             OR (NEW.status = 'submitted' AND OLD.status IS DISTINCT FROM 'submitted')))
  EXECUTE FUNCTION price_card_when_mailed();

-- add_monthly_figures gains the priced cards and their cents. Dropped, not replaced: an overload
-- beside the old one would make every call by named arguments ambiguous.
DROP FUNCTION add_monthly_figures(uuid, date, text, bigint, bigint, bigint, bigint, bigint, numeric);
CREATE FUNCTION add_monthly_figures(
  figures_org uuid, figures_month date, source_key text,
  queued bigint DEFAULT 0, held_out bigint DEFAULT 0, mailed bigint DEFAULT 0,
  new_leads bigint DEFAULT 0, deals bigint DEFAULT 0, amount numeric DEFAULT 0,
  priced bigint DEFAULT 0, cents bigint DEFAULT 0
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  first_shard int := pg_backend_pid() % 64;
  shard_taken int;
BEGIN
  IF figures_month IS NULL OR source_key IS NULL
     OR (queued = 0 AND held_out = 0 AND mailed = 0 AND new_leads = 0 AND deals = 0 AND amount = 0
         AND priced = 0 AND cents = 0) THEN
    RETURN;
  END IF;
  -- The first shard no other open transaction writes, held to the end of this one (0334).
  FOR step IN 0..63 LOOP
    IF pg_try_advisory_xact_lock(1296452166, hashtext(concat_ws('/', figures_org, figures_month, source_key, (first_shard + step) % 64))) THEN
      shard_taken := (first_shard + step) % 64;
      EXIT;
    END IF;
  END LOOP;
  INSERT INTO monthly_mail_figures AS f
    (org_id, month, source, shard, cards_queued, cards_held_out, cards_mailed, leads, won_deals, revenue,
     cards_priced, cost_cents)
  VALUES (figures_org, figures_month, source_key, COALESCE(shard_taken, first_shard),
          queued, held_out, mailed, new_leads, deals, amount, priced, cents)
  ON CONFLICT (org_id, month, source, shard) DO UPDATE SET
    cards_queued = f.cards_queued + EXCLUDED.cards_queued,
    cards_held_out = f.cards_held_out + EXCLUDED.cards_held_out,
    cards_mailed = f.cards_mailed + EXCLUDED.cards_mailed,
    leads = f.leads + EXCLUDED.leads,
    won_deals = f.won_deals + EXCLUDED.won_deals,
    revenue = f.revenue + EXCLUDED.revenue,
    cards_priced = f.cards_priced + EXCLUDED.cards_priced,
    cost_cents = f.cost_cents + EXCLUDED.cost_cents;
END
$$;

-- As 0334's, with a mailed piece's price moving with it.
CREATE OR REPLACE FUNCTION count_mail_piece_figures() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_source text; old_held boolean; old_created date; old_mailed date;
  new_source text; new_held boolean; new_created date; new_mailed date;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    old_source := campaign_figures_source(OLD.org_id, OLD.campaign_id);
    old_held := OLD.status = 'held_out';
    old_created := utc_month(CASE WHEN old_held THEN COALESCE(OLD.status_updated_at, OLD.created_at) ELSE OLD.created_at END);
    old_mailed := utc_month(OLD.mailed_at);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    new_source := CASE WHEN TG_OP = 'UPDATE' AND NEW.org_id = OLD.org_id AND NEW.campaign_id = OLD.campaign_id
                       THEN old_source ELSE campaign_figures_source(NEW.org_id, NEW.campaign_id) END;
    new_held := NEW.status = 'held_out';
    new_created := utc_month(CASE WHEN new_held THEN COALESCE(NEW.status_updated_at, NEW.created_at) ELSE NEW.created_at END);
    new_mailed := utc_month(NEW.mailed_at);
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.org_id = OLD.org_id AND new_source IS NOT DISTINCT FROM old_source THEN
    IF old_held = new_held AND old_created = new_created THEN
      old_created := NULL; new_created := NULL;
    END IF;
    IF old_mailed IS NOT DISTINCT FROM new_mailed AND OLD.cost_cents IS NOT DISTINCT FROM NEW.cost_cents THEN
      old_mailed := NULL; new_mailed := NULL;
    END IF;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    PERFORM add_monthly_figures(OLD.org_id, old_created, old_source,
      queued => CASE WHEN old_held THEN 0 ELSE -1 END, held_out => CASE WHEN old_held THEN -1 ELSE 0 END);
    PERFORM add_monthly_figures(OLD.org_id, old_mailed, old_source, mailed => -1,
      priced => -(OLD.cost_cents IS NOT NULL)::int, cents => -COALESCE(OLD.cost_cents, 0));
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM add_monthly_figures(NEW.org_id, new_created, new_source,
      queued => CASE WHEN new_held THEN 0 ELSE 1 END, held_out => CASE WHEN new_held THEN 1 ELSE 0 END);
    PERFORM add_monthly_figures(NEW.org_id, new_mailed, new_source, mailed => 1,
      priced => (NEW.cost_cents IS NOT NULL)::int, cents => COALESCE(NEW.cost_cents, 0));
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER mail_piece_figures_on_update ON mail_pieces;
CREATE TRIGGER mail_piece_figures_on_update AFTER UPDATE ON mail_pieces FOR EACH ROW
  WHEN (OLD.org_id IS DISTINCT FROM NEW.org_id OR OLD.campaign_id IS DISTINCT FROM NEW.campaign_id
        OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.mailed_at IS DISTINCT FROM NEW.mailed_at
        OR OLD.cost_cents IS DISTINCT FROM NEW.cost_cents
        OR (OLD.status = 'held_out') IS DISTINCT FROM (NEW.status = 'held_out')
        OR (NEW.status = 'held_out' AND OLD.status_updated_at IS DISTINCT FROM NEW.status_updated_at))
  EXECUTE FUNCTION count_mail_piece_figures();

-- As 0580's, with the inserted mailed pieces' prices.
CREATE OR REPLACE FUNCTION count_inserted_piece_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM add_monthly_figures(org_id, created_month, campaign_figures_source(org_id, campaign_id),
                              queued => queued, held_out => held)
  FROM (SELECT org_id, campaign_id,
               utc_month(CASE WHEN status = 'held_out' THEN COALESCE(status_updated_at, created_at)
                              ELSE created_at END) AS created_month,
               count(*) FILTER (WHERE status IS DISTINCT FROM 'held_out') AS queued,
               count(*) FILTER (WHERE status = 'held_out') AS held
        FROM inserted_pieces GROUP BY 1, 2, 3) created;
  PERFORM add_monthly_figures(org_id, mailed_month, campaign_figures_source(org_id, campaign_id),
                              mailed => mailed, priced => priced, cents => cents)
  FROM (SELECT org_id, campaign_id, utc_month(mailed_at) AS mailed_month, count(*) AS mailed,
               count(cost_cents) AS priced, COALESCE(sum(cost_cents), 0)::bigint AS cents
        FROM inserted_pieces WHERE mailed_at IS NOT NULL GROUP BY 1, 2, 3) mailed;
  RETURN NULL;
END
$$;

-- As 0334's recount (0339 renamed it and locks around it), with the priced cards.
CREATE OR REPLACE FUNCTION recount_monthly_mail_figures(figures_org uuid) RETURNS void LANGUAGE sql AS $$
  DELETE FROM monthly_mail_figures WHERE figures_org IS NULL OR org_id = figures_org;
  INSERT INTO monthly_mail_figures
    (org_id, month, source, shard, cards_queued, cards_held_out, cards_mailed, leads, won_deals, revenue,
     cards_priced, cost_cents)
  SELECT org_id, month, source, 0, sum(queued), sum(held_out), sum(mailed), sum(new_leads), sum(deals), sum(amount),
         sum(priced), sum(cents)
  FROM (
    SELECT p.org_id, utc_month(CASE WHEN p.status = 'held_out' THEN COALESCE(p.status_updated_at, p.created_at) ELSE p.created_at END) AS month,
           figures_source_or_none(c.automation_id, c.origin, c.id) AS source,
           (p.status <> 'held_out')::int AS queued, (p.status = 'held_out')::int AS held_out,
           0 AS mailed, 0 AS new_leads, 0 AS deals, 0::numeric AS amount, 0 AS priced, 0::bigint AS cents
    FROM mail_pieces p LEFT JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
    WHERE figures_org IS NULL OR p.org_id = figures_org
    UNION ALL
    SELECT p.org_id, utc_month(p.mailed_at), figures_source_or_none(c.automation_id, c.origin, c.id), 0, 0, 1, 0, 0, 0,
           (p.cost_cents IS NOT NULL)::int, COALESCE(p.cost_cents, 0)::bigint
    FROM mail_pieces p LEFT JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
    WHERE p.mailed_at IS NOT NULL AND (figures_org IS NULL OR p.org_id = figures_org)
    UNION ALL
    SELECT l.org_id, utc_month(l.created_at),
           figures_source_or_none(c.automation_id, c.origin, c.id), 0, 0, 0, 1, 0, 0, 0, 0
    FROM leads l LEFT JOIN campaigns c ON c.org_id = l.org_id AND c.id = l.campaign_id
    WHERE figures_org IS NULL OR l.org_id = figures_org
    UNION ALL
    SELECT v.org_id, utc_month(COALESCE(v.deal_date, v.created_at)), figures_source_or_none(c.automation_id, c.origin, c.id),
           0, 0, 0, 0, 1, COALESCE(v.deal_amount, 0), 0, 0
    FROM conversions v LEFT JOIN campaigns c ON c.org_id = v.org_id AND c.id = v.campaign_id
    WHERE figures_org IS NULL OR v.org_id = figures_org
  ) counted
  GROUP BY org_id, month, source;
$$;
