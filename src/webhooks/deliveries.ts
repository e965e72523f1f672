import { Type } from "@fastify/type-provider-typebox";
import { desc, eq } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
import { deliveries } from "../db/schema.ts";

export const DeliveryRecord = Type.Object(
  {
    id: Type.String(),
    lead_id: Type.String(),
    subscription_id: Type.String(),
    target_url: Type.String(),
    signed: Type.Boolean(),
    outcome: Type.String({ description: "attempted, blocked, timeout or error" }),
    status_code: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: "date-time" }),
  },
  { title: "DeliveryRecord" },
);

/** The operator's delivery log of an organization, newest first. */
export async function listDeliveries(db: Queryable, orgId: string, limit: number) {
  const rows = await db
    .select()
    .from(deliveries)
    .where(eq(deliveries.orgId, orgId))
    .orderBy(desc(deliveries.createdAt), desc(deliveries.id))
    .limit(limit);
  return rows.map((row) => ({
    id: row.id,
    lead_id: row.leadId,
    subscription_id: row.subscriptionId,
    target_url: row.targetUrl,
    signed: row.signed,
    outcome: row.outcome,
    status_code: row.statusCode,
    error: row.error,
    created_at: row.createdAt.toISOString(),
  }));
}
