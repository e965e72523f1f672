/**
 * The deployment's reference addresses: every mailable home with its point (table
 * `reference_addresses`, loaded by load-addresses.ts). This module owns the table's SQL: the row
 * an OpenAddresses record becomes, the batched insert, the record's own home, and the nearest
 * homes around a point.
 */
import { type Database, type Queryable, queryRows, sql } from "../db/database.ts";

/** Statements with array parameters go through `run` (one parameter per array, prepared). */
export type Runner = Pick<Database, "run">;

import { namesAPlace, normalizeAddress } from "../domain/address.ts";
import { keysOfSameHome, sameHome, streetOfKey } from "../domain/same-home.ts";

/** One OpenAddresses record, by its column names (`LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE`). */
export interface OpenAddressesRecord {
  LON?: string;
  LAT?: string;
  NUMBER?: string;
  STREET?: string;
  UNIT?: string;
  CITY?: string;
  DISTRICT?: string;
  REGION?: string;
  POSTCODE?: string;
}

export interface ReferenceAddress {
  normalizedAddress: string;
  /** The printable street line: "742 Evergreen Ter Apt 4". */
  street: string;
  city: string;
  state: string;
  zip: string;
  latitude: number;
  longitude: number;
}

export type RowVerdict = { address: ReferenceAddress } | { rejected: string };

const clean = (value: string | undefined) => (value ?? "").replace(/\s+/g, " ").trim();

function coordinate(text: string | undefined, limit: number): number | undefined {
  const value = clean(text);
  if (!/^-?\d+(?:\.\d+)?$/.test(value)) return undefined;
  const number = Number(value);
  return Math.abs(number) <= limit ? number : undefined;
}

/** "4" and "#4" print as "#4"; "APT 4" stays as written. */
function unitLine(unit: string): string {
  if (!unit) return "";
  return /^#?\w+$/.test(unit) && !/^[A-Za-z]+$/.test(unit) ? `#${unit.replace(/^#/, "")}` : unit;
}

/** An OpenAddresses record as a reference address, or the reason it cannot be one. */
export function referenceAddressOf(record: OpenAddressesRecord): RowVerdict {
  const longitude = coordinate(record.LON, 180);
  const latitude = coordinate(record.LAT, 90);
  if (longitude === undefined || latitude === undefined) return { rejected: "bad coordinates" };
  if (longitude === 0 && latitude === 0) return { rejected: "bad coordinates" };
  const number = clean(record.NUMBER);
  const streetName = clean(record.STREET);
  if (!number) return { rejected: "no house number" };
  if (!streetName) return { rejected: "no street" };
  const city = clean(record.CITY);
  const state = clean(record.REGION).toUpperCase();
  const zip = clean(record.POSTCODE).slice(0, 5);
  if (!city && !/^\d{5}$/.test(zip)) return { rejected: "no city or ZIP" };
  const street = [number, streetName, unitLine(clean(record.UNIT))].filter(Boolean).join(" ");
  const locality = [city, [state, zip].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  const normalizedAddress = normalizeAddress(`${street}, ${locality}`);
  if (!namesAPlace(normalizedAddress) || !/^\d/.test(normalizedAddress)) {
    return { rejected: "unreadable address" };
  }
  return { address: { normalizedAddress, street, city, state, zip, latitude, longitude } };
}

/** One line to print: "742 Evergreen Ter, Springfield, IL 62704". */
export function mailingLineOf(address: Pick<ReferenceAddress, "street" | "city" | "state" | "zip">): string {
  const stateZip = [address.state, address.zip].filter(Boolean).join(" ");
  return [address.street, address.city, stateZip].filter(Boolean).join(", ");
}

/**
 * Inserts a batch in one statement (rows as parallel arrays, so its text never changes and PGlite
 * prepares it once); an address already present, or twice in the batch, is skipped. Returns how
 * many rows were added.
 */
export async function insertReferenceAddresses(database: Runner, rows: ReferenceAddress[]): Promise<number> {
  if (rows.length === 0) return 0;
  const column = <K extends keyof ReferenceAddress>(key: K) => rows.map((row) => row[key]);
  const [result] = await database.run<{ added: number | string }>({
    name: "reference_addresses_insert_v1",
    text: `WITH added AS (
          INSERT INTO reference_addresses (normalized_address, street, city, state, zip, latitude, longitude)
          SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::float8[])
          ON CONFLICT (normalized_address) DO NOTHING
          RETURNING 1)
        SELECT count(*)::int AS added FROM added`,
    values: [
      column("normalizedAddress"),
      column("street"),
      column("city"),
      column("state"),
      column("zip"),
      column("latitude"),
      column("longitude"),
    ],
  });
  return Number(result?.added ?? 0);
}

export async function countReferenceAddresses(db: Queryable): Promise<number> {
  const [row] = await queryRows<{ count: number | string }>(
    db,
    sql`SELECT count(*)::int AS count FROM reference_addresses`,
  );
  return Number(row?.count ?? 0);
}

export interface LocatedHome {
  normalizedAddress: string;
  latitude: number;
  longitude: number;
}

/**
 * The reference address of a home known by its key: the same key, or the same home written with
 * more or less of its locality (a CRM's "742 Evergreen Terrace, Springfield, IL" is the file's
 * "742 EVERGREEN TER, SPRINGFIELD IL 62704").
 */
export async function findReferenceHome(db: Queryable, key: string): Promise<LocatedHome | undefined> {
  const rows = await queryRows<{ normalized_address: string; latitude: number; longitude: number }>(
    db,
    sql`SELECT normalized_address, latitude, longitude FROM reference_addresses
        WHERE split_part(normalized_address, ', ', 1) = ${streetOfKey(key)}
        ORDER BY normalized_address LIMIT 50`,
  );
  const home =
    rows.find((row) => row.normalized_address === key) ??
    rows.find((row) => sameHome(row.normalized_address, key));
  return home
    ? {
        normalizedAddress: home.normalized_address,
        latitude: Number(home.latitude),
        longitude: Number(home.longitude),
      }
    : undefined;
}

export interface NearbyHome extends ReferenceAddress {
  distanceM: number;
}

export interface NearestQuery {
  latitude: number;
  longitude: number;
  count: number;
  radiusM: number;
  /** Keys never returned (the point's own home under every key it may be stored under). */
  excludeKeys: readonly string[];
}

/** Latitude bands per degree: must equal the factor in `reference_addresses.lat_cell`. */
const LAT_CELLS_PER_DEGREE = 100;
const METRES_PER_DEGREE_LAT = 111_320;
export const EARTH_RADIUS_M = 6_371_008.8;

/** The search box of a circle: its latitude bands and its latitude and longitude ranges. */
export function searchBox(latitude: number, longitude: number, radiusM: number) {
  const dLat = radiusM / METRES_PER_DEGREE_LAT;
  const cosine = Math.max(Math.cos((latitude * Math.PI) / 180), 0.01);
  const dLon = Math.min(radiusM / (METRES_PER_DEGREE_LAT * cosine), 180);
  const first = Math.floor((latitude - dLat) * LAT_CELLS_PER_DEGREE);
  const last = Math.floor((latitude + dLat) * LAT_CELLS_PER_DEGREE);
  const cells = Array.from({ length: last - first + 1 }, (_, index) => first + index);
  return {
    cells,
    minLat: latitude - dLat,
    maxLat: latitude + dLat,
    minLon: longitude - dLon,
    maxLon: longitude + dLon,
  };
}

/** Great-circle distance in metres (haversine), the same formula the query ranks by. */
export function distanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const a =
    Math.sin(radians(lat2 - lat1) / 2) ** 2 +
    Math.cos(radians(lat1)) * Math.cos(radians(lat2)) * Math.sin(radians(lon2 - lon1) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * The `count` nearest reference addresses within `radiusM` of a point, nearest first (ties by
 * key), never one of `excludeKeys`: one statement that seeks the box's latitude bands in the
 * `reference_addresses_cell` index and ranks the box's rows by exact haversine distance.
 */
export async function nearestHomes(db: Queryable, query: NearestQuery): Promise<NearbyHome[]> {
  const { latitude, longitude, radiusM } = query;
  const box = searchBox(latitude, longitude, radiusM);
  const lat = sql`${latitude}::float8`;
  const rows = await queryRows<{
    normalized_address: string;
    street: string;
    city: string;
    state: string;
    zip: string;
    latitude: number;
    longitude: number;
    distance_m: number;
  }>(
    db,
    sql`SELECT * FROM (
          SELECT normalized_address, street, city, state, zip, latitude, longitude,
                 2 * ${EARTH_RADIUS_M}::float8 * asin(least(1, sqrt(
                   power(sin(radians(latitude - ${lat}) / 2), 2)
                   + cos(radians(${lat})) * cos(radians(latitude))
                     * power(sin(radians(longitude - ${longitude}::float8) / 2), 2)))) AS distance_m
          FROM reference_addresses
          WHERE lat_cell = ANY(${sql.param(box.cells)}::int[])
            AND longitude BETWEEN ${box.minLon}::float8 AND ${box.maxLon}::float8
            AND latitude BETWEEN ${box.minLat}::float8 AND ${box.maxLat}::float8
            AND normalized_address <> ALL(${sql.param([...query.excludeKeys])}::text[])
        ) box
        WHERE distance_m <= ${radiusM}::float8
        ORDER BY distance_m, normalized_address
        LIMIT ${query.count}::int`,
  );
  return rows.map((row) => ({
    normalizedAddress: row.normalized_address,
    street: row.street,
    city: row.city,
    state: row.state,
    zip: row.zip,
    latitude: Number(row.latitude),
    longitude: Number(row.longitude),
    distanceM: Number(row.distance_m),
  }));
}

/** Every key a home may be stored under (its own key first), to exclude it from its neighbours. */
export const ownHomeKeys = (key: string) => keysOfSameHome(key);
