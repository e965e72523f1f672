import { and, eq } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
import { leads } from "../db/schema.ts";
import { isUuid } from "../domain/uuid.ts";

/*
 * The loop guard: a record or tracking lead whose `service_lead_id` names one of the org's own
 * leads came back from the org's CRM after we delivered it, and must not trigger mail again.
 */

/** True when `serviceLeadId` is one of the org's own leads (anything else is ignored). */
export async function isOwnLead(db: Queryable, orgId: string, serviceLeadId: string | undefined) {
  const id = serviceLeadId?.trim();
  if (!id || !isUuid(id)) return false;
  const [row] = await db
    .select({ id: leads.id })
    .from(leads)
    .where(and(eq(leads.orgId, orgId), eq(leads.id, id.toLowerCase())))
    .limit(1);
  return row !== undefined;
}
