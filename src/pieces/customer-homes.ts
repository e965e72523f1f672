import { type Queryable, queryRows, sql } from "../db/database.ts";
import { sameHomeKeys, stopFollowUpsOfUnmailed } from "./follow-ups.ts";
import { WAITING } from "./piece-updates.ts";

export const SUPPRESSED_REASON = "the home is a registered customer on your Customers list";

const at = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/**
 * The homes became customers: their cards still waiting before print (held, awaiting approval,
 * capped), where the card's automation suppresses customers (a mailing always does), are
 * suppressed now, as the pipeline would suppress them when they went on. A card awaiting approval
 * no longer asks for an approval that could only end it unmailed. Their follow-ups stop with them.
 * Answers the suppressed cards' ids.
 */
export async function suppressWaitingCardsOfHomes(
  db: Queryable,
  orgId: string,
  addressKeys: readonly string[],
  now: Date,
): Promise<string[]> {
  if (addressKeys.length === 0) return [];
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE mail_pieces p SET status = 'suppressed', status_reason = ${SUPPRESSED_REASON},
          status_updated_at = ${at(now)}
        FROM campaigns c LEFT JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id
        WHERE p.org_id = ${orgId}::uuid AND p.normalized_address = ANY(${sql.param(sameHomeKeys(addressKeys))}::text[])
          AND p.status IN ${WAITING} AND c.org_id = p.org_id AND c.id = p.campaign_id
          AND COALESCE(a.suppress_customers, true)
        RETURNING p.id`,
  );
  const ids = rows.map((row) => row.id);
  await stopFollowUpsOfUnmailed(db, orgId, ids, "suppressed", now);
  return ids;
}
