/**
 * The card a piece prints, in SQL over `piece` (an alias of mail_pieces) beside `c`, its campaign,
 * and `a`, its automation (left-joined: a mailing has none).
 */
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

/** The template the piece would print now: its automation's (or its mailing's), or its step's. */
export const currentTemplateOf = (piece: string) =>
  sql`CASE WHEN ${sql.raw(piece)}.sequence_step IS NULL THEN COALESCE(a.template, c.template)
           ELSE ${stepOfFollowUp(piece)} -> 'template' END`;

/**
 * The template the piece prints: the one a person approved, pinned at approval (an edit made
 * afterwards is not what they approved), else the current one.
 */
export const printedTemplateOf = (piece: string) =>
  sql`COALESCE(${sql.raw(piece)}.approved_template, ${currentTemplateOf(piece)})`;

/**
 * What the approver saw: a fingerprint of the template the piece would print now. An approval that
 * names it approves only while the card is still that one (an edit between the proof and the
 * press is not approved unseen).
 */
export const cardVersionOf = (piece: string) => sql`md5(COALESCE((${currentTemplateOf(piece)})::text, ''))`;
