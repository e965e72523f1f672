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

/** Runs of whitespace as one space, trimmed; most fields of a file need nothing (checked first). */
const clean = (value: string | undefined) =>
  value === undefined ? "" : /^\S+(?: \S+)*$/.test(value) ? value : value.replace(/\s+/g, " ").trim();

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

/** A plain house number the memo may stand in for: 1-6 digits, no leading zero. */
const PLAIN_NUMBER = /^[1-9]\d{0,5}$/;
/** Every digit changed (0→1 … 8→9, 9→1), never a leading zero. */
const probeOf = (number: string) =>
  number.replace(/\d/g, (digit) => (digit === "9" ? "1" : String(Number(digit) + 1)));
/**
 * Per street shape (the number's length and everything after it): the key's text after the
 * number, or null when the key does not carry the number as its first word unchanged.
 */
const keyTails = new Map<string, string | null>();
const MAX_SHAPES = 100_000;

/**
 * `normalizeAddress(number + rest)`, parsing once per street shape. A file lists a street's homes
 * with only the number changing ("742 EVERGREEN TER, …", "744 EVERGREEN TER, …"), and the key
 * function reads a run of digits the same whatever the digits are: parse-address matches the
 * number as one `\d+` group and maps no field holding it, the folding and fallbacks of
 * src/domain/address.ts look digits up only in a ZIP at the end of the text. So for two plain
 * numbers of the same length the keys differ only where the number is copied. The first number
 * of a shape is keyed for real along with a probe of the same length whose every digit differs;
 * when both keys are "number + the same tail", the tail is reused for the shape's later numbers,
 * else (the number moved, merged or vanished) every number of that shape is keyed for real. Any
 * other number ("12 1/2", "12A", "N123W456", "0", a leading zero) is keyed for real too.
 * test/neighbours/reference-addresses.test.ts checks it against the key function on varied input.
 */
export function numberedAddressKey(number: string, rest: string): string {
  if (!PLAIN_NUMBER.test(number)) return normalizeAddress(number + rest);
  const shape = `${number.length}${rest}`;
  const tail = keyTails.get(shape);
  if (tail === undefined) {
    const key = normalizeAddress(number + rest);
    const probe = probeOf(number);
    const probeKey = normalizeAddress(probe + rest);
    const found = key.startsWith(number) ? key.slice(number.length) : undefined;
    const reusable = found !== undefined && probeKey === probe + found && !/^\d/.test(found);
    if (keyTails.size >= MAX_SHAPES) keyTails.clear();
    keyTails.set(shape, reusable ? found : null);
    return key;
  }
  return tail === null ? normalizeAddress(number + rest) : number + tail;
}

/** An OpenAddresses record as a reference address, or the reason it cannot be one. */
export function referenceAddressOf(record: OpenAddressesRecord): RowVerdict {
  // PostgreSQL stores no NUL: one such row must be rejected, not fail the whole upload's write.
  if (Object.values(record).some((value) => typeof value === "string" && value.includes("\u0000"))) {
    return { rejected: "unreadable address" };
  }
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
  const normalizedAddress = numberedAddressKey(number, `${street.slice(number.length)}, ${locality}`);
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
 * A CTE that adds the rows of CTE `added` (its column `zip`) to the homes counted per ZIP
 * (`reference_address_zips`), for an insert of reference addresses to run in its own statement.
 * ZIPs are taken in order, so concurrent loaders lock their rows in the same order.
 */
export const COUNT_ADDED_BY_ZIP = `counted AS (
          INSERT INTO reference_address_zips (zip, homes)
          SELECT zip, count(*) FROM added WHERE zip <> '' GROUP BY zip ORDER BY zip
          ON CONFLICT (zip) DO UPDATE SET homes = reference_address_zips.homes + excluded.homes)`;

/** Counts the homes per ZIP of a whole table again (a load that rebuilt the table). */
export const recountZipsFrom = (table: string) => [
  "DELETE FROM reference_address_zips",
  `INSERT INTO reference_address_zips (zip, homes) SELECT zip, count(*) FROM ${table} WHERE zip <> '' GROUP BY zip`,
];

/**
 * Inserts a batch in one statement (rows as parallel arrays, so its text never changes and PGlite
 * prepares it once), in key order (each insert lands next to the previous one in the key's btree);
 * an address already present, or twice in the batch, is skipped. Returns how
 * many rows were added.
 */
export async function insertReferenceAddresses(database: Runner, rows: ReferenceAddress[]): Promise<number> {
  if (rows.length === 0) return 0;
  const column = <K extends keyof ReferenceAddress>(key: K) => rows.map((row) => row[key]);
  const [result] = await database.run<{ added: number | string }>({
    name: "reference_addresses_insert_v3",
    text: `WITH added AS (
          INSERT INTO reference_addresses (normalized_address, street, city, state, zip, latitude, longitude)
          SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::float8[])
          ORDER BY 1
          ON CONFLICT (normalized_address) DO NOTHING
          RETURNING zip), ${COUNT_ADDED_BY_ZIP}
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

/**
 * The secondary indexes as migrations 0160 and 0230 create them: a bulk load into a table small
 * against the file drops them and builds them once at its end (one GiST build is several times
 * cheaper than a GiST insert per row). test/neighbours/reference-addresses.test.ts checks that a
 * rebuild leaves the same definitions as the migrations.
 */
const SECONDARY_INDEXES = [
  ["reference_addresses_by_street", "(split_part(normalized_address, ', ', 1))"],
  ["reference_addresses_lonlat", "USING gist (lonlat)"],
] as const;

export const dropSecondaryIndexes = SECONDARY_INDEXES.map(([name]) => `DROP INDEX ${name}`);
export const createSecondaryIndexes = SECONDARY_INDEXES.map(
  ([name, definition]) => `CREATE INDEX ${name} ON reference_addresses ${definition}`,
);

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

export const EARTH_RADIUS_M = 6_371_008.8;
const radians = (degrees: number) => (degrees * Math.PI) / 180;
const degrees = (radians: number) => (radians * 180) / Math.PI;

/**
 * The circle's latitude farthest from the equator (its angular radius from the point's, widened
 * by a millionth): a home beyond it is more than the radius away (haversine is at least the
 * latitude difference), so only homes within it can be neighbours.
 */
export function edgeLatitude(latitude: number, radiusM: number): number {
  return Math.min(Math.abs(latitude) + degrees(radiusM / EARTH_RADIUS_M) * (1 + 1e-6), 90);
}

/** Great-circle distance in metres (haversine), the same formula the query ranks by. */
export function distanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const a =
    Math.sin(radians(lat2 - lat1) / 2) ** 2 +
    Math.cos(radians(lat1)) * Math.cos(radians(lat2)) * Math.sin(radians(lon2 - lon1) / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * The least haversine distance, in metres, of a home within `edgeLatitude` whose `<->` distance
 * from the point (degrees of longitude and latitude taken as a plane) is at least `planeDegrees`.
 * With e = that distance in radians and c = the cosine of the edge latitude: haversine's
 * h = sin²(Δφ/2) + cos φ1 cos φ2 sin²(Δλ/2) ≥ c²(sin²(Δφ/2) + sin²(Δλ/2)), sin x ≥ x(1 − x²/6),
 * so h ≥ (c e/2)²(1 − e²/24)², and 2R asin √h ≥ R c e (1 − e²/24), which grows with e up to
 * 2.8 rad; past 1 rad (sin x ≥ 2x/π on [0, π/2] covers the rest) every home is at least the bound
 * at 1 rad away, so e is taken at most 1. Less a billionth for the float arithmetic. (`<->` does
 * not wrap at the 180° meridian, so homes across it are not found, as with any box on longitudes.)
 */
export function guaranteedDistanceM(edgeLatitudeDegrees: number, planeDegrees: number): number {
  const e = Math.min(radians(planeDegrees), 1);
  const cosine = Math.cos(radians(edgeLatitudeDegrees));
  return Math.max(0, EARTH_RADIUS_M * cosine * e * (1 - (e * e) / 24) * (1 - 1e-9));
}

interface NearestRow {
  candidates: number | string;
  farthest: number | null;
  normalized_address: string | null;
  street: string;
  city: string;
  state: string;
  zip: string;
  latitude: number;
  longitude: number;
  distance_m: number;
}

/**
 * The `count` nearest reference addresses within `radiusM` of a point, nearest first (ties by
 * key), never one of `excludeKeys`. One statement reads the `limit` homes nearest in
 * longitude-latitude degrees through the GiST index `reference_addresses_lonlat` (a KNN index
 * scan: about `limit` rows read whatever the density; the statement has no box condition, which
 * would let the planner read every home of the box through a bitmap scan and sort them) and
 * ranks them by exact haversine distance. Degrees are not metres (a degree of longitude is cos φ
 * of one of latitude), so the answer is final only when no home left unread could come before
 * the K-th: when the table had fewer than `limit` homes, or when the K-th found (the radius, with
 * fewer than K) is nearer than `guaranteedDistanceM` of the farthest read. Otherwise it reads
 * again with four times the limit. The first limit, K / c² + 16, covers the circle's stretch in
 * degrees, so one statement nearly always answers; in a sparse area the farthest read is soon
 * beyond the radius.
 */
export async function nearestHomes(db: Queryable, query: NearestQuery): Promise<NearbyHome[]> {
  const { latitude, longitude, radiusM, count } = query;
  const edge = edgeLatitude(latitude, radiusM);
  const cosine = Math.cos(radians(edge));
  const lat = sql`${latitude}::float8`;
  const centre = sql`point(${longitude}::float8, ${lat})`;
  for (let limit = Math.ceil(count / Math.max(cosine * cosine, 0.01)) + 16; ; limit *= 4) {
    const rows = await queryRows<NearestRow>(
      db,
      sql`WITH candidate AS (
            SELECT normalized_address, street, city, state, zip, latitude, longitude,
                   lonlat <-> ${centre} AS plane,
                   2 * ${EARTH_RADIUS_M}::float8 * asin(least(1, sqrt(
                     power(sin(radians(latitude - ${lat}) / 2), 2)
                     + cos(radians(${lat})) * cos(radians(latitude))
                       * power(sin(radians(longitude - ${longitude}::float8) / 2), 2)))) AS distance_m
            FROM reference_addresses
            WHERE normalized_address <> ALL(${sql.param([...query.excludeKeys])}::text[])
            ORDER BY lonlat <-> ${centre}
            LIMIT ${limit}::int
          ), summary AS (SELECT count(*) AS candidates, max(plane) AS farthest FROM candidate)
          SELECT summary.candidates, summary.farthest, nearest.*
          FROM summary LEFT JOIN LATERAL (
            SELECT normalized_address, street, city, state, zip, latitude, longitude, distance_m
            FROM candidate WHERE distance_m <= ${radiusM}::float8
            ORDER BY distance_m, normalized_address
            LIMIT ${count}::int
          ) nearest ON true`,
    );
    const first = rows[0];
    const homes = rows.filter((row) => row.normalized_address !== null);
    const exhausted = Number(first?.candidates ?? 0) < limit;
    const kth = homes.length === count ? Number(homes[homes.length - 1]!.distance_m) : radiusM;
    if (exhausted || kth < guaranteedDistanceM(edge, Number(first?.farthest ?? 0))) {
      return homes.map((row) => ({
        normalizedAddress: row.normalized_address!,
        street: row.street,
        city: row.city,
        state: row.state,
        zip: row.zip,
        latitude: Number(row.latitude),
        longitude: Number(row.longitude),
        distanceM: Number(row.distance_m),
      }));
    }
  }
}

/** Every key a home may be stored under (its own key first), to exclude it from its neighbours. */
export const ownHomeKeys = (key: string) => keysOfSameHome(key);
