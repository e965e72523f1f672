/**
 * The card a piece prints, in SQL over `piece` (an alias of mail_pieces) beside `c`, its campaign,
 * and `a`, its automation (left-joined: a mailing has none).
 */
import type { SQL } from "drizzle-orm";
import { sql } from "../db/database.ts";

/**
 * The automation's step a follow-up piece belongs to: the step with its delay, read at the moment
 * of use (an edited card's text is what goes out); NULL once no step has that delay (removed, or
 * moved to another day). By delay, not by position: removing step 1 must not hand follow-up 1 step
 * 2's card.
 */
export const stepOfFollowUp = (piece: string) =>
  sql`(SELECT s.step FROM jsonb_array_elements(a.steps) AS s(step)
       WHERE (s.step ->> 'delay_days')::int = ${sql.raw(piece)}.sequence_step_delay LIMIT 1)`;

/**
 * The automation's (or mailing's) template, or its step's, as stored (a first card without one prints
 * the default card; a follow-up whose step is gone has none: NULL).
 */
const storedTemplateOf = (piece: string) =>
  sql`CASE WHEN ${sql.raw(piece)}.sequence_step IS NULL THEN COALESCE(a.template, c.template, '{}'::jsonb)
           ELSE ${stepOfFollowUp(piece)} -> 'template' END`;

/**
 * Whose offer line a template has: a stored one's own only when it has words (an empty or blank
 * offer takes the organization's, as the fit check reads it); a pinned one's as pinned ("" is the
 * pinned "none"; a pin from before offers were pinned has none and takes the organization's).
 */
const HAS_OWN_OFFER = {
  stored: sql`NULLIF(btrim(t.template ->> 'offer'), '') IS NOT NULL`,
  pinned: sql`t.template ->> 'offer' IS NOT NULL`,
};

/**
 * `template` with its offer line decided: one without an offer of its own takes the organization's
 * (the profile's, read now; "" when there is none, which prints none). So the offer is part of what
 * an approval pins and of the card version it names: an offer changed in Settings after the approval
 * is not printed on the approved card. NULL stays NULL.
 */
const withOfferDecided = (template: SQL, piece: string, kind: keyof typeof HAS_OWN_OFFER) =>
  sql`(SELECT CASE WHEN t.template IS NULL OR ${HAS_OWN_OFFER[kind]} THEN t.template
                   ELSE t.template || jsonb_build_object('offer', COALESCE(
                     (SELECT prof.offer FROM organization_profiles prof WHERE prof.org_id = ${sql.raw(piece)}.org_id), ''))
              END
       FROM (SELECT ${template} AS template) AS t)`;

/** The template the piece would print now: its automation's (or its mailing's), or its step's, offer decided. */
export const currentTemplateOf = (piece: string) =>
  withOfferDecided(storedTemplateOf(piece), piece, "stored");

/**
 * The template the piece prints: the one a person approved, pinned at approval (an edit made
 * afterwards is not what they approved), else the current one. Its offer is always decided, so the
 * print never falls back to the profile's offer of the moment (render-piece.ts `senderOfPiece`).
 */
export const printedTemplateOf = (piece: string) =>
  sql`COALESCE(${withOfferDecided(sql`${sql.raw(piece)}.approved_template`, piece, "pinned")}, ${currentTemplateOf(piece)})`;

/**
 * What the approver saw: a fingerprint of the template the piece would print now. An approval that
 * names it approves only while the card is still that one (an edit between the proof and the
 * press is not approved unseen).
 */
export const cardVersionOf = (piece: string) => sql`md5(COALESCE((${currentTemplateOf(piece)})::text, ''))`;
