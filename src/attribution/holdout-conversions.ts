// Won deals at held-out homes (issue 42): they count for the automation's experiment only. They
// live in holdout_conversions, never in conversions, so no attributed revenue, no Revenue list and
// no developer API answer ever shows them.
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { sameHome } from "../domain/same-home.ts";
import { onStreetOf } from "./matching.ts";
import type { AttributionWindow, ReferenceDate } from "./window.ts";

export interface HoldoutDeal {
  /** The conversion's idempotency key (attribution/conversions.ts's conversionKey). */
  key: string;
  normalizedAddress: string;
  dealAmount: string | undefined;
  reference: ReferenceDate;
  /** The mail it is matched against (window.ts: from the close date, or now when that is ahead). */
  window: AttributionWindow;
}

const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/**
 * Records the deal for each automation that held this home out within the attribution window
 * (the same 180 days, counted from the day the home was held out), against that automation's
 * latest held-out piece there. Idempotent by the conversion key: a replay keeps the first match
 * and updates the amount it sends.
 */
export async function recordHoldoutConversions(
  db: Queryable,
  orgId: string,
  deal: HoldoutDeal,
): Promise<void> {
  const { from, until } = deal.window;
  // The held-out pieces on the home's street, of which sameHome keeps the home's: most deals are at
  // no held-out home, and then nothing is written.
  const onStreet = await queryRows<{ id: string; normalized_address: string }>(
    db,
    sql`SELECT id, normalized_address FROM mail_pieces
        WHERE org_id = ${orgId}::uuid AND ${onStreetOf(deal.normalizedAddress)} AND status = 'held_out'
          AND status_updated_at >= ${at(from)} AND status_updated_at < ${at(until)}`,
  );
  const ids = onStreet
    .filter((piece) => sameHome(piece.normalized_address, deal.normalizedAddress))
    .map((piece) => piece.id);
  if (ids.length === 0) return;
  await db.execute(sql`
    INSERT INTO holdout_conversions (org_id, idempotency_key, automation_id, piece_id, deal_amount, deal_date)
    SELECT DISTINCT ON (c.automation_id) p.org_id, ${deal.key}, c.automation_id, p.id,
           ${deal.dealAmount ?? null}::numeric, ${at(deal.reference.at)}
    FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
    WHERE p.org_id = ${orgId}::uuid AND p.id = ANY(${sql.param(ids)}::uuid[]) AND p.status = 'held_out'
      AND c.automation_id IS NOT NULL
    ORDER BY c.automation_id, p.status_updated_at DESC, p.id
    ON CONFLICT (org_id, idempotency_key, automation_id) DO UPDATE SET
      deal_amount = COALESCE(EXCLUDED.deal_amount, holdout_conversions.deal_amount),
      updated_at = now()`);
}

/** A won deal taken back (a lead marked won by mistake): it no longer counts for any experiment. */
export async function forgetHoldoutConversions(db: Queryable, orgId: string, key: string): Promise<void> {
  await db.execute(
    sql`DELETE FROM holdout_conversions WHERE org_id = ${orgId}::uuid AND idempotency_key = ${key}`,
  );
}
