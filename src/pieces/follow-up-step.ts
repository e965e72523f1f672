import { sql } from "../db/database.ts";

/**
 * The automation's step a follow-up piece (`piece`, an alias of mail_pieces beside `a`, its
 * automation) belongs to: the step with its delay, read at the moment of use (an edited card's text
 * is what goes out); NULL once no step has that delay (removed, or moved to another day). By
 * delay, not by position: removing step 1 must not hand follow-up 1 step 2's card.
 */
export const stepOfFollowUp = (piece: string) =>
  sql`(SELECT s.step FROM jsonb_array_elements(a.steps) AS s(step)
       WHERE (s.step ->> 'delay_days')::int = ${sql.raw(piece)}.sequence_step_delay LIMIT 1)`;
