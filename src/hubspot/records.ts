import type { Payload } from "../attribution/payload-fields.ts";
import { nonBlank } from "../domain/address.ts";
import { MAX_PROPERTY_VALUE_LENGTH } from "../trigger/envelope.ts";
import type { HubSpotCrmObject } from "./hubspot-shapes.ts";

/*
 * HubSpot's records in Porchlight's words: the reserved event properties (street, city, state,
 * zip, client_name, client_email, client_phone, amount, status) and the conversion fields, read
 * from HubSpot's default property names (contacts' and companies' `address` is the street line).
 */

/** The event types HubSpot's records arrive as; automations bind to them like to any CRM's. */
export const HUBSPOT_EVENT_TYPES = [
  "hubspot.contact_created",
  "hubspot.contact_changed",
  "hubspot.deal_created",
  "hubspot.deal_stage_changed",
] as const;
export type HubSpotEventType = (typeof HUBSPOT_EVENT_TYPES)[number];

export const CONTACT_PROPERTIES = [
  "firstname",
  "lastname",
  "email",
  "phone",
  "mobilephone",
  "address",
  "city",
  "state",
  "zip",
  "lifecyclestage",
] as const;
export const COMPANY_PROPERTIES = ["name", "phone", "address", "city", "state", "zip"] as const;
export const DEAL_PROPERTIES = ["dealname", "amount", "closedate", "dealstage", "pipeline"] as const;

/** The contact or company whose home a deal is about (the first associated one with a street). */
export type DealParty = { kind: "contact" | "company"; record: HubSpotCrmObject };

const property = (record: HubSpotCrmObject, name: string) =>
  nonBlank(record.properties[name] ?? undefined)?.slice(0, MAX_PROPERTY_VALUE_LENGTH);

/** Only the properties that have a value: an event property is never an empty string. */
function present(properties: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(properties).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

export const hasStreet = (record: HubSpotCrmObject) => property(record, "address") !== undefined;

function addressOf(record: HubSpotCrmObject) {
  return {
    street: property(record, "address"),
    city: property(record, "city"),
    state: property(record, "state"),
    zip: property(record, "zip"),
  };
}

function contactName(record: HubSpotCrmObject): string | undefined {
  return nonBlank([property(record, "firstname"), property(record, "lastname")].filter(Boolean).join(" "));
}

function partyContact(party: DealParty | undefined) {
  if (!party) return {};
  const { record } = party;
  if (party.kind === "company") {
    return { client_name: property(record, "name"), client_phone: property(record, "phone") };
  }
  return {
    client_name: contactName(record),
    client_email: property(record, "email"),
    client_phone: property(record, "phone") ?? property(record, "mobilephone"),
  };
}

/** A contact as an event's record properties: its address, name, email, phone and lifecycle stage. */
export function contactEventProperties(contact: HubSpotCrmObject): Record<string, string> {
  return present({
    ...addressOf(contact),
    ...partyContact({ kind: "contact", record: contact }),
    status: property(contact, "lifecyclestage"),
  });
}

/** A deal as an event's record properties: the party's address and contact, the deal's amount and stage. */
export function dealEventProperties(deal: HubSpotCrmObject, party: DealParty | undefined) {
  return present({
    ...(party ? addressOf(party.record) : {}),
    ...partyContact(party),
    amount: property(deal, "amount"),
    status: property(deal, "dealstage"),
    cf_dealname: property(deal, "dealname"),
    cf_pipeline: property(deal, "pipeline"),
  });
}

/**
 * A won deal as the payload POST /api/v1/conversions reads (its field names and HubSpot's aliases),
 * so attribution reads it with the very same code: the street, city, state and ZIP sent apart.
 */
export function conversionPayload(deal: HubSpotCrmObject, party: DealParty | undefined): Payload {
  const contact = party?.kind === "contact" ? party.record : undefined;
  return present({
    deal_id: deal.id,
    ...(party ? addressOf(party.record) : {}),
    deal_amount: property(deal, "amount"),
    deal_date: property(deal, "closedate"),
    deal_stage: property(deal, "dealstage"),
    deal_name: property(deal, "dealname"),
    contact_first_name: contact && property(contact, "firstname"),
    contact_last_name: contact && property(contact, "lastname"),
    contact_email: contact && property(contact, "email"),
  });
}

/** The ids of a deal's associated records of one kind, as HubSpot lists them (at most `limit`). */
export function associatedIds(deal: HubSpotCrmObject, kind: "contacts" | "companies", limit: number) {
  return (deal.associations?.[kind]?.results ?? [])
    .map((association) => association.id)
    .filter((id) => /^[0-9]{1,20}$/.test(id))
    .slice(0, limit);
}
