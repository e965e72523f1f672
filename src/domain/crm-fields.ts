import { type TSchema, Type } from "@fastify/type-provider-typebox";

// Field schemas of the tolerant CRM payloads (conversions, tracking leads, customers, the legacy
// trigger), shared by their routes, the MCP tools and the OpenAPI document.

/**
 * An optional field of the tolerant CRM payloads, where null means absent: CRMs (HubSpot, Zapier)
 * send null for an empty property.
 */
export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Optional(Type.Union([schema, Type.Null()], description ? { description } : {}));

/** An optional text field of the tolerant CRM payloads (null means absent). */
export const OptionalText = (maxLength: number, description?: string) =>
  Nullable(Type.String({ maxLength }), description);

/** A date as ISO-8601 text, or the Unix epoch (milliseconds or seconds) HubSpot sends. */
export const CrmDate = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Integer(), Type.Null()], { description }));

/** A CRM's own name for a text field: text or a number (read as its decimal text), null absent. */
export const AliasText = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Null()], { description }));

/** CRM record ids: HubSpot sends them (`objectId`, `hs_object_id`) as numbers. */
export const RecordId = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Integer(), Type.Null()], { description }));

/**
 * The parts of an address sent apart (HubSpot's `address` is the street line only). Each completes
 * an address naming none of its own; a ZIP sent as a number has its leading zeros restored.
 */
export const localityFields = {
  city: OptionalText(200, "City, added to an address that names none."),
  state: OptionalText(100, "State, added to an address that names none."),
  zip: Type.Optional(
    Type.Union([Type.String({ maxLength: 20 }), Type.Integer(), Type.Null()], {
      description:
        "ZIP (also postal_code, zip_code, zipcode, each held to the same 20 characters), added to an address that names none.",
    }),
  ),
};

/** The address sent apart as a street line and its locality. */
export const addressPartFields = {
  street: OptionalText(
    500,
    "Street line (also street_address, address_line_1, each held to the same 500 characters) when no address is sent.",
  ),
  ...localityFields,
};
