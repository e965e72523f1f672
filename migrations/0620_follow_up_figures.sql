-- What became of each automation's follow-up cards (issue 42): how many went to print, how many
-- wait for their day or before print, and how many stopped because the home answered first. A
-- contractor paying for a sequence could see one card's reason at a time, never the sum. Counting
-- an automation's follow-ups when the list is read scans all its mail (at a million cards, seconds),
-- so the counts are kept as the rows change, by automation, step (its delay), status and what
-- stopped it, sharded like monthly_mail_figures (0334) so concurrent writers never wait on one row.

-- What stopped a follow-up (cancelled_by = 'sequence'): an answer of the home (the stop conditions
-- lead, won_deal, opt_out, customer, returned), its first card not being mailed, its step being
-- removed from the automation, or the automation being turned off (automation_off: until now an
-- automation turned off still mailed the follow-ups it had scheduled). Follow-ups stopped before
-- this are named by their reason's words.
ALTER TABLE mail_pieces ADD COLUMN stopped_by text;

UPDATE mail_pieces SET stopped_by = CASE
    WHEN status_reason LIKE 'Stopped: the first card was not mailed%' THEN 'first_card_not_mailed'
    WHEN status_reason LIKE 'Stopped: the automation no longer has%' THEN 'step_removed'
    WHEN status_reason LIKE 'Stopped: a deal was won%' THEN 'won_deal'
    WHEN status_reason LIKE 'Stopped: the home asked for no more mail%' THEN 'opt_out'
    WHEN status_reason LIKE 'Stopped: the home became a customer%' THEN 'customer'
    WHEN status_reason LIKE 'Stopped: the printer returned%' THEN 'returned'
    WHEN status_reason LIKE 'Stopped: % answered the % card on %' THEN 'lead'
  END
WHERE sequence_step IS NOT NULL AND cancelled_by = 'sequence';

CREATE TABLE follow_up_figures (
  org_id uuid NOT NULL,
  automation_id uuid NOT NULL,
  step_delay smallint NOT NULL,
  status text NOT NULL,
  -- mail_pieces.stopped_by, '' when nothing stopped it.
  stopped_by text NOT NULL,
  shard smallint NOT NULL,
  cards bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, automation_id, step_delay, status, stopped_by, shard)
);

CREATE FUNCTION add_follow_up_figure(
  figures_org uuid, campaign uuid, delay smallint, piece_status text, stop text, delta bigint
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  automation uuid;
  first_shard int := pg_backend_pid() % 64;
  shard_taken int;
BEGIN
  SELECT automation_id INTO automation FROM campaigns WHERE org_id = figures_org AND id = campaign;
  IF automation IS NULL OR delay IS NULL THEN
    RETURN;
  END IF;
  -- A shard no other open transaction writes, held to the end of this one (see add_monthly_figures).
  FOR step IN 0..63 LOOP
    IF pg_try_advisory_xact_lock(1179994963, hashtext(concat_ws('/', figures_org, automation, (first_shard + step) % 64))) THEN
      shard_taken := (first_shard + step) % 64;
      EXIT;
    END IF;
  END LOOP;
  INSERT INTO follow_up_figures AS f (org_id, automation_id, step_delay, status, stopped_by, shard, cards)
  VALUES (figures_org, automation, delay, piece_status, COALESCE(stop, ''), COALESCE(shard_taken, first_shard), delta)
  ON CONFLICT (org_id, automation_id, step_delay, status, stopped_by, shard) DO UPDATE SET cards = f.cards + EXCLUDED.cards;
END
$$;

CREATE FUNCTION count_follow_up_figures() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.sequence_step IS NOT NULL THEN
    PERFORM add_follow_up_figure(OLD.org_id, OLD.campaign_id, OLD.sequence_step_delay, OLD.status, OLD.stopped_by, -1);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.sequence_step IS NOT NULL THEN
    PERFORM add_follow_up_figure(NEW.org_id, NEW.campaign_id, NEW.sequence_step_delay, NEW.status, NEW.stopped_by, 1);
  END IF;
  RETURN NULL;
END
$$;

-- First cards (sequence_step NULL), nearly every piece, are filtered by the WHEN clauses without
-- running the function.
CREATE TRIGGER mail_piece_follow_up_figures_on_insert AFTER INSERT ON mail_pieces FOR EACH ROW
  WHEN (NEW.sequence_step IS NOT NULL)
  EXECUTE FUNCTION count_follow_up_figures();
CREATE TRIGGER mail_piece_follow_up_figures_on_delete AFTER DELETE ON mail_pieces FOR EACH ROW
  WHEN (OLD.sequence_step IS NOT NULL)
  EXECUTE FUNCTION count_follow_up_figures();
CREATE TRIGGER mail_piece_follow_up_figures_on_update
  AFTER UPDATE OF status, stopped_by, sequence_step, sequence_step_delay, campaign_id, org_id ON mail_pieces FOR EACH ROW
  WHEN ((OLD.sequence_step IS NOT NULL OR NEW.sequence_step IS NOT NULL)
        AND (OLD.status, OLD.stopped_by, OLD.sequence_step, OLD.sequence_step_delay, OLD.campaign_id, OLD.org_id)
            IS DISTINCT FROM (NEW.status, NEW.stopped_by, NEW.sequence_step, NEW.sequence_step_delay, NEW.campaign_id, NEW.org_id))
  EXECUTE FUNCTION count_follow_up_figures();

-- Recounts one organization's figures (every organization's with NULL) from its rows, holding
-- writers of pieces off meanwhile (see rebuild_piece_status_counts, 0338).
CREATE FUNCTION rebuild_follow_up_figures(figures_org uuid) RETURNS void LANGUAGE sql AS $$
  LOCK TABLE mail_pieces IN SHARE MODE;
  DELETE FROM follow_up_figures WHERE figures_org IS NULL OR org_id = figures_org;
  INSERT INTO follow_up_figures (org_id, automation_id, step_delay, status, stopped_by, shard, cards)
  SELECT p.org_id, c.automation_id, p.sequence_step_delay, p.status, COALESCE(p.stopped_by, ''), 0, count(*)
  FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
  WHERE p.sequence_step IS NOT NULL AND p.sequence_step_delay IS NOT NULL AND c.automation_id IS NOT NULL
    AND (figures_org IS NULL OR p.org_id = figures_org)
  GROUP BY p.org_id, c.automation_id, p.sequence_step_delay, p.status, COALESCE(p.stopped_by, '');
$$;

SELECT rebuild_follow_up_figures(NULL);
