-- What the contractor app's Overview, Revenue and automation list count, kept per organization,
-- UTC month and source as the rows change (issue 41): counting a year of a million cards at read
-- time took over a second. A source is the campaign's automation id, else 'reactivation' (the
-- app's reactivation mailings) or 'recorded' (the operator's recorded mail), or 'none' (a lead
-- without a campaign). Triggers keep it in the transaction of the change, whichever code path
-- writes, so it can never disagree with the rows; `rebuild_monthly_mail_figures(org)` recounts
-- it from them (the backfill below, bulk loads with the triggers off).
--
-- A row is one of 64 shards: concurrent transactions (workers queueing cards for the same
-- automation) each add to a shard no other open transaction holds, instead of queueing on one row
-- lock until the other commits (add_monthly_figures). Reads sum the shards.
CREATE TABLE monthly_mail_figures (
  org_id uuid NOT NULL,
  month date NOT NULL,
  source text NOT NULL,
  shard smallint NOT NULL,
  -- Pieces by the month they were created, except held-out homes' (the automation list's "cards this month").
  cards_queued bigint NOT NULL DEFAULT 0,
  -- Held-out homes' pieces by the month they were held out.
  cards_held_out bigint NOT NULL DEFAULT 0,
  -- Pieces by the month they were mailed.
  cards_mailed bigint NOT NULL DEFAULT 0,
  -- Leads by the month they arrived.
  leads bigint NOT NULL DEFAULT 0,
  -- Conversions and their amounts by close date (else the month they were recorded).
  won_deals bigint NOT NULL DEFAULT 0,
  revenue numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, month, source, shard)
);

CREATE FUNCTION utc_month(moment timestamptz) RETURNS date LANGUAGE sql IMMUTABLE AS
  $$ SELECT date_trunc('month', moment AT TIME ZONE 'UTC')::date $$;

CREATE FUNCTION figures_source(automation uuid, origin text) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT COALESCE(automation::text, CASE WHEN origin = 'reactivation' THEN 'reactivation' ELSE 'recorded' END) $$;

-- A campaign that is not there (a lead without one) counts as 'none'.
CREATE FUNCTION figures_source_or_none(automation uuid, origin text, campaign uuid) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT CASE WHEN campaign IS NULL THEN 'none' ELSE figures_source(automation, origin) END $$;

CREATE FUNCTION campaign_figures_source(campaign_org uuid, campaign uuid) RETURNS text LANGUAGE sql STABLE AS
  $$ SELECT COALESCE((SELECT figures_source(automation_id, origin) FROM campaigns
                      WHERE org_id = campaign_org AND id = campaign), 'none') $$;

CREATE FUNCTION add_monthly_figures(
  figures_org uuid, figures_month date, source_key text,
  queued bigint DEFAULT 0, held_out bigint DEFAULT 0, mailed bigint DEFAULT 0,
  new_leads bigint DEFAULT 0, deals bigint DEFAULT 0, amount numeric DEFAULT 0
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  first_shard int := pg_backend_pid() % 64;
  shard_taken int;
BEGIN
  IF figures_month IS NULL OR source_key IS NULL
     OR (queued = 0 AND held_out = 0 AND mailed = 0 AND new_leads = 0 AND deals = 0 AND amount = 0) THEN
    RETURN;
  END IF;
  -- The first shard no other open transaction writes, held to the end of this one: a writer never
  -- waits for another's row, so two that write several rows in different orders cannot deadlock.
  -- (An advisory lock is this session's to take again; 64 writers at once wait on the first.)
  FOR step IN 0..63 LOOP
    IF pg_try_advisory_xact_lock(1296452166, hashtext(concat_ws('/', figures_org, figures_month, source_key, (first_shard + step) % 64))) THEN
      shard_taken := (first_shard + step) % 64;
      EXIT;
    END IF;
  END LOOP;
  INSERT INTO monthly_mail_figures AS f
    (org_id, month, source, shard, cards_queued, cards_held_out, cards_mailed, leads, won_deals, revenue)
  VALUES (figures_org, figures_month, source_key, COALESCE(shard_taken, first_shard),
          queued, held_out, mailed, new_leads, deals, amount)
  ON CONFLICT (org_id, month, source, shard) DO UPDATE SET
    cards_queued = f.cards_queued + EXCLUDED.cards_queued,
    cards_held_out = f.cards_held_out + EXCLUDED.cards_held_out,
    cards_mailed = f.cards_mailed + EXCLUDED.cards_mailed,
    leads = f.leads + EXCLUDED.leads,
    won_deals = f.won_deals + EXCLUDED.won_deals,
    revenue = f.revenue + EXCLUDED.revenue;
END
$$;

-- A piece adds to the month it was created (queued, or held out) and the month it was mailed;
-- a change moves it between months (a bucket it stays in is left alone), a delete takes it away.
CREATE FUNCTION count_mail_piece_figures() RETURNS trigger LANGUAGE plpgsql AS $$
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
    IF old_mailed IS NOT DISTINCT FROM new_mailed THEN
      old_mailed := NULL; new_mailed := NULL;
    END IF;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    PERFORM add_monthly_figures(OLD.org_id, old_created, old_source,
      queued => CASE WHEN old_held THEN 0 ELSE -1 END, held_out => CASE WHEN old_held THEN -1 ELSE 0 END);
    PERFORM add_monthly_figures(OLD.org_id, old_mailed, old_source, mailed => -1);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM add_monthly_figures(NEW.org_id, new_created, new_source,
      queued => CASE WHEN new_held THEN 0 ELSE 1 END, held_out => CASE WHEN new_held THEN 1 ELSE 0 END);
    PERFORM add_monthly_figures(NEW.org_id, new_mailed, new_source, mailed => 1);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION count_lead_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM add_monthly_figures(OLD.org_id, utc_month(OLD.created_at),
      campaign_figures_source(OLD.org_id, OLD.campaign_id), new_leads => -1);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM add_monthly_figures(NEW.org_id, utc_month(NEW.created_at),
      campaign_figures_source(NEW.org_id, NEW.campaign_id), new_leads => 1);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION count_conversion_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM add_monthly_figures(OLD.org_id, utc_month(COALESCE(OLD.deal_date, OLD.created_at)),
      campaign_figures_source(OLD.org_id, OLD.campaign_id),
      deals => -1, amount => -COALESCE(OLD.deal_amount, 0));
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM add_monthly_figures(NEW.org_id, utc_month(COALESCE(NEW.deal_date, NEW.created_at)),
      campaign_figures_source(NEW.org_id, NEW.campaign_id),
      deals => 1, amount => COALESCE(NEW.deal_amount, 0));
  END IF;
  RETURN NULL;
END
$$;

-- The WHEN clauses keep the triggers off the many updates that change nothing counted (a
-- piece's status through rendering and printing, a lead opened, a replay's contact name).
CREATE TRIGGER mail_piece_figures_on_insert_or_delete AFTER INSERT OR DELETE ON mail_pieces
  FOR EACH ROW EXECUTE FUNCTION count_mail_piece_figures();
CREATE TRIGGER mail_piece_figures_on_update AFTER UPDATE ON mail_pieces FOR EACH ROW
  WHEN (OLD.org_id IS DISTINCT FROM NEW.org_id OR OLD.campaign_id IS DISTINCT FROM NEW.campaign_id
        OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.mailed_at IS DISTINCT FROM NEW.mailed_at
        OR (OLD.status = 'held_out') IS DISTINCT FROM (NEW.status = 'held_out')
        OR (NEW.status = 'held_out' AND OLD.status_updated_at IS DISTINCT FROM NEW.status_updated_at))
  EXECUTE FUNCTION count_mail_piece_figures();

CREATE TRIGGER lead_figures_on_insert_or_delete AFTER INSERT OR DELETE ON leads
  FOR EACH ROW EXECUTE FUNCTION count_lead_figures();
CREATE TRIGGER lead_figures_on_update AFTER UPDATE ON leads FOR EACH ROW
  WHEN (OLD.org_id IS DISTINCT FROM NEW.org_id OR OLD.campaign_id IS DISTINCT FROM NEW.campaign_id
        OR OLD.created_at IS DISTINCT FROM NEW.created_at)
  EXECUTE FUNCTION count_lead_figures();

CREATE TRIGGER conversion_figures_on_insert_or_delete AFTER INSERT OR DELETE ON conversions
  FOR EACH ROW EXECUTE FUNCTION count_conversion_figures();
CREATE TRIGGER conversion_figures_on_update AFTER UPDATE ON conversions FOR EACH ROW
  WHEN (OLD.org_id IS DISTINCT FROM NEW.org_id OR OLD.campaign_id IS DISTINCT FROM NEW.campaign_id
        OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.deal_date IS DISTINCT FROM NEW.deal_date
        OR OLD.deal_amount IS DISTINCT FROM NEW.deal_amount)
  EXECUTE FUNCTION count_conversion_figures();

-- Recounts one organization's figures (every organization's with NULL) from its rows.
CREATE FUNCTION rebuild_monthly_mail_figures(figures_org uuid) RETURNS void LANGUAGE sql AS $$
  DELETE FROM monthly_mail_figures WHERE figures_org IS NULL OR org_id = figures_org;
  INSERT INTO monthly_mail_figures
    (org_id, month, source, shard, cards_queued, cards_held_out, cards_mailed, leads, won_deals, revenue)
  SELECT org_id, month, source, 0, sum(queued), sum(held_out), sum(mailed), sum(new_leads), sum(deals), sum(amount)
  FROM (
    SELECT p.org_id, utc_month(CASE WHEN p.status = 'held_out' THEN COALESCE(p.status_updated_at, p.created_at) ELSE p.created_at END) AS month,
           figures_source_or_none(c.automation_id, c.origin, c.id) AS source,
           (p.status <> 'held_out')::int AS queued, (p.status = 'held_out')::int AS held_out,
           0 AS mailed, 0 AS new_leads, 0 AS deals, 0::numeric AS amount
    FROM mail_pieces p LEFT JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
    WHERE figures_org IS NULL OR p.org_id = figures_org
    UNION ALL
    SELECT p.org_id, utc_month(p.mailed_at), figures_source_or_none(c.automation_id, c.origin, c.id), 0, 0, 1, 0, 0, 0
    FROM mail_pieces p LEFT JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
    WHERE p.mailed_at IS NOT NULL AND (figures_org IS NULL OR p.org_id = figures_org)
    UNION ALL
    SELECT l.org_id, utc_month(l.created_at),
           figures_source_or_none(c.automation_id, c.origin, c.id), 0, 0, 0, 1, 0, 0
    FROM leads l LEFT JOIN campaigns c ON c.org_id = l.org_id AND c.id = l.campaign_id
    WHERE figures_org IS NULL OR l.org_id = figures_org
    UNION ALL
    SELECT v.org_id, utc_month(COALESCE(v.deal_date, v.created_at)), figures_source_or_none(c.automation_id, c.origin, c.id),
           0, 0, 0, 0, 1, COALESCE(v.deal_amount, 0)
    FROM conversions v LEFT JOIN campaigns c ON c.org_id = v.org_id AND c.id = v.campaign_id
    WHERE figures_org IS NULL OR v.org_id = figures_org
  ) counted
  GROUP BY org_id, month, source;
$$;

SELECT rebuild_monthly_mail_figures(NULL);
