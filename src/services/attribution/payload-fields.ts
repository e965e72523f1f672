import { AppError } from "../../errors.ts";

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
] as const;

/** 400 `No address found in payload` on the older-style endpoints. */
export const noAddressFound = () => new AppError(400, "no_address");
