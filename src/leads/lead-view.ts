import { Type } from "@fastify/type-provider-typebox";
import { and, eq } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
import { campaigns, type LeadCustomField, leads, mailPieces } from "../db/schema.ts";

export const LeadCustomFieldSchema = Type.Object(
  {
    field_id: Type.String(),
    field_label: Type.String(),
    type: Type.String(),
    value: Type.Array(Type.String()),
  },
  { title: "LeadCustomField" },
);

const leadProperties = {
  id: Type.String({ format: "uuid" }),
  name: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  address: Type.String(),
  street: Type.String(),
  city: Type.String(),
  state: Type.String(),
  postal_code: Type.String(),
  country: Type.String(),
  full_address: Type.String(),
  latitude: Type.Union([Type.Number(), Type.Null()], { description: "Null until the address is geocoded." }),
  longitude: Type.Union([Type.Number(), Type.Null()], { description: "Null until the address is geocoded." }),
  message: Type.String({ description: "Text typed by the lead." }),
  campaign_id: Type.String(),
  campaign_name: Type.String(),
  source: Type.String({ description: "Display label of the origin." }),
  custom_fields: Type.Array(LeadCustomFieldSchema),
  custom_issues: Type.String({ description: "The flattened `issues` field; empty when absent." }),
  created_at: Type.String({ format: "date-time" }),
  test: Type.Optional(Type.Boolean({ description: "Present and true only on the sample lead." })),
};

/** A lead as polled. Each custom field is also a top-level `custom_<field_id>` string. */
export const Lead = Type.Object(leadProperties, {
  title: "Lead",
  additionalProperties: Type.String({ description: "custom_<field_id>: values joined with ;" }),
});

/** A lead as delivered by `lead.created`: the polled shape plus `service_lead_id`. */
export const LeadCreatedPayload = Type.Object(
  { ...leadProperties, service_lead_id: Type.String({ description: "Same value as id." }) },
  {
    title: "LeadCreatedPayload",
    additionalProperties: Type.String({ description: "custom_<field_id>: values joined with ;" }),
  },
);

export type LeadView = Record<string, unknown> & { id: string; created_at: string };

export const LANDING_PAGE_SOURCE_LABEL = "Landing page";

type LeadRow = typeof leads.$inferSelect;

/** The flattened custom keys: one per submitted field, and custom_issues always. */
export function flattenCustomFields(fields: LeadCustomField[]): Record<string, string> {
  const flat: Record<string, string> = { custom_issues: "" };
  for (const field of fields) flat[`custom_${field.field_id}`] = field.value.join(";");
  return flat;
}

/** The mailed piece's point, read with the lead: a piece geocoded after the capture still locates it. */
export interface PiecePoint {
  latitude: number | null;
  longitude: number | null;
}

export function toLeadView(row: LeadRow, campaignName: string | null, piece?: PiecePoint | null): LeadView {
  const located = row.latitude !== null && row.longitude !== null;
  const point = located || !piece ? { latitude: row.latitude, longitude: row.longitude } : piece;
  const name = [row.firstName, row.lastName].filter(Boolean).join(" ");
  return {
    id: row.id,
    name,
    first_name: row.firstName,
    last_name: row.lastName,
    email: row.email,
    phone: row.phone,
    address: row.fullAddress,
    street: row.street,
    city: row.city,
    state: row.state,
    postal_code: row.postalCode,
    country: row.country,
    full_address: row.fullAddress,
    latitude: point.latitude,
    longitude: point.longitude,
    message: row.message,
    campaign_id: row.campaignId ?? "",
    campaign_name: campaignName ?? "",
    source: row.source === "landing_page" ? LANDING_PAGE_SOURCE_LABEL : "CRM sync",
    // Stored as JSONB, whose key order is not the documented one; deliveries show this order.
    custom_fields: row.customFields.map(({ field_id, field_label, type, value }) => ({
      field_id,
      field_label,
      type,
      value,
    })),
    ...flattenCustomFields(row.customFields),
    created_at: row.createdAt.toISOString(),
  };
}

/** The outbound body: service_lead_id right after id, so receivers can guard against echo loops. */
export function toDeliveryPayload(view: LeadView): Record<string, unknown> {
  const { id, ...rest } = view;
  return { id, service_lead_id: id, ...rest };
}

/** What a lead view reads: the lead, its campaign's name and its piece's point. */
export const leadViewColumns = {
  lead: leads,
  campaignName: campaigns.name,
  piece: { latitude: mailPieces.latitude, longitude: mailPieces.longitude },
};

export async function loadLeadView(
  db: Queryable,
  orgId: string,
  leadId: string,
): Promise<LeadView | undefined> {
  const [found] = await db
    .select(leadViewColumns)
    .from(leads)
    .leftJoin(campaigns, and(eq(campaigns.orgId, leads.orgId), eq(campaigns.id, leads.campaignId)))
    .leftJoin(mailPieces, and(eq(mailPieces.orgId, leads.orgId), eq(mailPieces.id, leads.pieceId)))
    .where(and(eq(leads.orgId, orgId), eq(leads.id, leadId)));
  return found ? toLeadView(found.lead, found.campaignName, found.piece) : undefined;
}
