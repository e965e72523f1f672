import { Type } from "@fastify/type-provider-typebox";
import { asc, eq } from "drizzle-orm";
import type { Static } from "typebox";
import type { Queryable } from "../db/database.ts";
import { leadFields } from "../db/schema.ts";
import { invalidPayload } from "../errors.ts";

export const LEAD_FIELD_TYPES = ["text", "select", "multiselect", "checkbox"] as const;
export type LeadFieldType = (typeof LEAD_FIELD_TYPES)[number];

/** A custom field of an organization's lead form (operator API). */
export const LeadFieldInput = Type.Object(
  {
    field_id: Type.String({ pattern: "^[a-z][a-z0-9_]*$", maxLength: 64 }),
    label: Type.String({ minLength: 1, maxLength: 200 }),
    type: Type.Union(LEAD_FIELD_TYPES.map((type) => Type.Literal(type))),
    options: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50, uniqueItems: true }),
    ),
  },
  { additionalProperties: false, title: "LeadFieldInput" },
);
export type LeadFieldInput = Static<typeof LeadFieldInput>;

export const LeadField = Type.Object(
  {
    field_id: Type.String(),
    label: Type.String(),
    type: Type.String(),
    options: Type.Array(Type.String()),
    position: Type.Integer(),
  },
  { title: "LeadField" },
);
export type LeadField = Static<typeof LeadField>;

/** Creates or replaces a field; returns it and whether it is new. */
export async function upsertLeadField(
  db: Queryable,
  orgId: string,
  input: LeadFieldInput,
): Promise<{ field: LeadField; created: boolean }> {
  // Its flattened key would be custom_fields, the lead's array of custom fields.
  if (input.field_id === "fields") throw invalidPayload('field_id: "fields" is reserved');
  const options = input.options ?? [];
  if ((input.type === "select" || input.type === "multiselect") && options.length === 0) {
    throw invalidPayload(`options: a ${input.type} field needs at least one option`);
  }
  // A lead's choices reach custom_<field_id> joined with semicolons: "Roof; repair" could not be
  // told apart from two choices.
  const joinedBadly = input.type === "multiselect" ? options.findIndex((option) => option.includes(";")) : -1;
  if (joinedBadly >= 0) {
    throw invalidPayload(
      `options[${joinedBadly}]: a multiselect option may not contain ";" (choices are joined with semicolons)`,
    );
  }
  if (input.type === "text" && options.length > 0) {
    throw invalidPayload("options: a text field takes no options");
  }
  const existing = await listLeadFields(db, orgId);
  const previous = existing.find((field) => field.field_id === input.field_id);
  const position =
    previous?.position ?? existing.reduce((max, field) => Math.max(max, field.position + 1), 0);
  const values = { label: input.label, type: input.type, options, position };
  await db
    .insert(leadFields)
    .values({ orgId, fieldId: input.field_id, ...values })
    .onConflictDoUpdate({ target: [leadFields.orgId, leadFields.fieldId], set: values });
  return { field: { field_id: input.field_id, ...values }, created: !previous };
}

export async function listLeadFields(db: Queryable, orgId: string): Promise<LeadField[]> {
  const rows = await db
    .select()
    .from(leadFields)
    .where(eq(leadFields.orgId, orgId))
    .orderBy(asc(leadFields.position), asc(leadFields.fieldId));
  return rows.map((row) => ({
    field_id: row.fieldId,
    label: row.label,
    type: row.type,
    options: row.options,
    position: row.position,
  }));
}
