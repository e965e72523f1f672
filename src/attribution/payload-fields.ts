import { parseUsAddress } from "../domain/address.ts";
import { assertPrintable } from "../domain/printable-text.ts";
import { AppError, invalidPayload } from "../errors.ts";
import { parseReferenceDate, type ReferenceDate } from "./window.ts";

/**
 * Tolerant reading of CRM payloads: a field may sit at the top level or under `properties`, and
 * CRMs name the same thing differently. Each field is read from an ordered alias list; the first
 * alias holding a non-blank value wins (so a flat field beats the same field under properties).
 */
export type Payload = Record<string, unknown>;

/** Where a value was found, so a 422 can name the field the caller actually sent. */
export interface FoundValue {
  path: string;
  value: unknown;
}

function valueAt(payload: Payload, path: string): unknown {
  let current: unknown = payload;
  for (const segment of path.split(".")) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

const isBlank = (value: unknown) =>
  value === undefined || value === null || (typeof value === "string" && value.trim() === "");

/** The first alias whose value is present and not blank. */
export function findValue(payload: Payload, aliases: readonly string[]): FoundValue | undefined {
  for (const path of aliases) {
    const value = valueAt(payload, path);
    if (!isBlank(value)) return { path, value };
  }
  return undefined;
}

/** A trimmed string; finite numbers (HubSpot sends numeric ids) are read as their decimal text. */
export function readText(payload: Payload, aliases: readonly string[]): string | undefined {
  for (const path of aliases) {
    const value = valueAt(payload, path);
    if (typeof value === "string" && value.trim() !== "") return value.trim();
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
  }
  return undefined;
}

/**
 * An amount as CRMs format it: a sign, a `$`, thousands separators every three digits, spaces
 * around. "12,34" and "1.2.3" are not read as anything.
 */
const AMOUNT_TEXT = /^([+-]?)\$?(\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d+(?:\.\d*)?|\.\d+)$/;

/** An amount as plain decimal text ("$1,234.50" is "1234.50"); a blank string counts as absent. */
export function readDealAmount(payload: Payload, aliases: readonly string[]): string | undefined {
  const found = findValue(payload, aliases);
  if (!found) return undefined;
  if (typeof found.value === "number" && Number.isFinite(found.value)) return String(found.value);
  const match = typeof found.value === "string" ? AMOUNT_TEXT.exec(found.value.trim()) : null;
  if (!match) throw invalidPayload(`${found.path}: must be a number or a numeric string`);
  return `${match[1]}${match[2]!.replaceAll(",", "")}`;
}

/** Each name flat first, then under `properties`. */
export const flatThenProperties = (...names: string[]) => [
  ...names,
  ...names.map((name) => `properties.${name}`),
];

export const ADDRESS_ALIASES = [
  "address",
  "properties.address",
  "deal_address",
  "properties.deal_address",
  "install_address",
  "properties.install_address",
] as const;

export const DEAL_ID_ALIASES = [
  "deal_id",
  "properties.deal_id",
  "properties.hs_object_id",
  "hs_object_id",
  "objectId",
  "properties.objectId",
  "dealId",
  "properties.dealId",
] as const;

/** The deal's fields under the spec's names first, then HubSpot's deal properties. */
export const DEAL_AMOUNT_ALIASES = flatThenProperties("deal_amount", "amount");
export const DEAL_DATE_ALIASES = flatThenProperties("deal_date", "closedate", "close_date");
export const DEAL_STAGE_ALIASES = flatThenProperties("deal_stage", "dealstage", "stage", "status");
export const DEAL_NAME_ALIASES = flatThenProperties("deal_name", "dealname");

const EPOCH_DIGITS = /^\d{9,13}$/;

/**
 * A date as ISO-8601, or as the Unix epoch HubSpot workflows send (`closedate: "1767225600000"`):
 * 12 or 13 digits are milliseconds, 9 or 10 seconds.
 */
export function parseCrmDate(text: string, field: string): ReferenceDate {
  const digits = text.trim();
  if (!EPOCH_DIGITS.test(digits)) return parseReferenceDate(text, field);
  const epoch = Number(digits);
  return { at: new Date(digits.length >= 12 ? epoch : epoch * 1000), dateOnly: false };
}

/** The first alias's date, sent as text or as an epoch number. */
export function readDate(payload: Payload, aliases: readonly string[]): ReferenceDate | undefined {
  const found = findValue(payload, aliases);
  if (!found) return undefined;
  const text = typeof found.value === "number" ? String(found.value) : found.value;
  if (typeof text !== "string")
    throw invalidPayload(`${found.path}: must be an ISO-8601 date or Unix epoch milliseconds or seconds`);
  return parseCrmDate(text, found.path);
}

/** Where an address is read: the whole line (or the street alone), then its parts sent apart. */
export interface AddressFields {
  address: readonly string[];
  street: readonly string[];
  city: readonly string[];
  state: readonly string[];
  zip: readonly string[];
}

/**
 * Conversions, tracking leads and the trigger, flat or under `properties`. HubSpot sends `address`
 * as the street line only, with `city`, `state` and `zip` as properties of their own.
 */
export const CRM_ADDRESS_FIELDS: AddressFields = {
  address: ADDRESS_ALIASES,
  street: flatThenProperties("street", "street_address", "address_line_1"),
  city: flatThenProperties("city"),
  state: flatThenProperties("state"),
  zip: flatThenProperties("zip", "postal_code", "zip_code", "zipcode"),
};

/** The customers webhook's `{address, city?, state?, zip?}`: flat, as its address is. */
export const FLAT_ADDRESS_FIELDS: AddressFields = {
  address: ["address"],
  street: [],
  city: ["city"],
  state: ["state"],
  zip: ["zip", "postal_code", "zip_code", "zipcode"],
};

/** The most characters each address field may hold: the schema's limit of the field, applied to its aliases. */
export type AddressFieldLengths = Readonly<Record<keyof AddressFields, number>>;

/**
 * Conversions', tracking leads' and the customers webhook's limits (their schemas' `address`,
 * `street`, `city`, `state` and `zip`). The schemas name only those fields, so an alias such as
 * `street_address`, `address_line_1` or `zip_code` was read at any length up to the 1 MB body:
 * its key overflowed the database's index on addresses (a 500) and all of it was parsed.
 */
export const CRM_ADDRESS_LENGTHS: AddressFieldLengths = {
  address: 500,
  street: 500,
  city: 200,
  state: 100,
  zip: 20,
};

/** A ZIP sent as a number lost its leading zeros (`2134` is Boston's 02134). */
function readZip(payload: Payload, aliases: readonly string[]): string | undefined {
  const found = findValue(payload, aliases);
  if (typeof found?.value === "number" && Number.isInteger(found.value) && found.value >= 0)
    return String(found.value).padStart(5, "0");
  return readText(payload, aliases);
}

const endsWithWords = (text: string, words: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/(?<![\s,.])[\s,.]+$/, "")
    .endsWith(words.trim().toLowerCase());

/**
 * The address line: the address field (else the street) completed with the city, state and ZIP
 * sent apart, each only where the line names none of its own (the line wins over a conflicting
 * part). Whether the line names them is read by parsing it rather than by substring: "100 Hill
 * St" holds "IL" and "500 Chicago Ave" holds "Chicago", and neither names a state or a city.
 * Parts go after the line, so a city is added only to a line naming no city, state or ZIP.
 * `at` prefixes the field named in a 422 (a batch entry's `addresses[3].`).
 */
export function readAddressLine(
  payload: Payload,
  fields: AddressFields = CRM_ADDRESS_FIELDS,
  at = "",
  maxLengths: AddressFieldLengths = CRM_ADDRESS_LENGTHS,
) {
  // Every address field sent, read or not: none may hold what a card cannot print, nor be longer
  // than its field's schema allows.
  for (const field of ["address", "street", "city", "state", "zip"] as const) {
    for (const path of fields[field]) {
      const value = valueAt(payload, path);
      if (typeof value !== "string") continue;
      // Characters, as the schema's maxLength counts them (an emoji is one, not two UTF-16 units).
      if (value.length > maxLengths[field] && [...value].length > maxLengths[field])
        throw invalidPayload(`${at}${path}: must NOT have more than ${maxLengths[field]} characters`);
      assertPrintable(value, `${at}${path}`);
    }
  }
  const base = readText(payload, fields.address) ?? readText(payload, fields.street);
  if (!base) return undefined;
  const named = parseUsAddress(base);
  const city = named.city || named.state || named.zip ? undefined : readText(payload, fields.city);
  const state = named.state || named.zip ? undefined : readText(payload, fields.state);
  const zip = named.zip ? undefined : readZip(payload, fields.zip);
  // parse-address reads a city only before a state: "50 Oak Ave Chicago" already ends with it.
  const missingCity = city && !endsWithWords(base, city) ? city : undefined;
  const stateZip = [state, zip].filter(Boolean).join(" ");
  return [base, missingCity, stateZip].filter(Boolean).join(", ");
}

/** 400 `No address found in payload` on the older-style endpoints. */
export const noAddressFound = () => new AppError(400, "no_address");
