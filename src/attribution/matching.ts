import type { Logger } from "pino";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { STREET_CANDIDATES, sameHome, streetOfKey } from "../domain/same-home.ts";
import { isUuid } from "../domain/uuid.ts";
import type { Geocoder, GeoPrecision } from "../geo/geocoder.ts";
import type { AttributionWindow } from "./window.ts";

/**
 * How a conversion or synced lead was tied to a mailed piece, in the order they are tried:
 * `campaign_id` (the caller named the campaign), `geo` (both points within the radius),
 * `address` (equal normalized address).
 */
export const MATCH_METHODS = ["campaign_id", "geo", "address"] as const;
export type MatchMethod = (typeof MATCH_METHODS)[number];

/**
 * `exact` for campaign_id; `high` for geo when both points are rooftop-precise and for an equal
 * normalized address; `medium` for geo when either point is only street-precise, and for the same
 * home written with more or less of its locality (a missing city or ZIP).
 */
export const MATCH_CONFIDENCES = ["exact", "high", "medium"] as const;
export type MatchConfidence = (typeof MATCH_CONFIDENCES)[number];

/** `direct` when the matched piece is the deal's home and has a landing-page lead, else `indirect`. */
export const ATTRIBUTION_TYPES = ["direct", "indirect"] as const;
export type AttributionType = (typeof ATTRIBUTION_TYPES)[number];

/** A located address precise enough to compare as a point (postcode/locality centroids are not). */
export interface GeoPoint {
  lat: number;
  lng: number;
  precision: Extract<GeoPrecision, "rooftop" | "street">;
}

export interface MatchQuery {
  orgId: string;
  normalizedAddress: string;
  point: GeoPoint | undefined;
  campaignId: string | undefined;
  window: AttributionWindow;
}

export interface PieceMatch {
  pieceId: string;
  campaignId: string;
  mailedAt: Date;
  method: MatchMethod;
  confidence: MatchConfidence;
  /** False when a named campaign matched through another home's piece (it has none here). */
  sameHome: boolean;
}

interface PieceRow {
  id: string;
  campaign_id: string;
  mailed_at: Date | string;
  geo_precision?: string | null;
}

const EARTH_RADIUS_M = 6_371_000;
const METERS_PER_DEGREE_LAT = 111_320;

const toMatch = (
  row: PieceRow,
  method: MatchMethod,
  confidence: MatchConfidence,
  sameHome = true,
): PieceMatch => ({
  pieceId: row.id,
  campaignId: row.campaign_id,
  mailedAt: new Date(row.mailed_at),
  method,
  confidence,
  sameHome,
});

/** The window as a range on mailed_at (with org_id and normalized_address, an index range probe). */
const mailedWithin = ({ from, until }: AttributionWindow) =>
  sql`mailed_at >= ${from.toISOString()}::timestamptz AND mailed_at < ${until.toISOString()}::timestamptz`;

/**
 * Last-touch match of an address to one of the org's mailed pieces in the window: the first
 * method that finds any candidate decides, and among its candidates the latest mailed_at wins.
 */
export async function matchMailedPiece(
  db: Queryable,
  query: MatchQuery,
  geoRadiusMeters: number,
): Promise<PieceMatch | undefined> {
  if (query.campaignId && isUuid(query.campaignId)) {
    const byCampaign = await matchByCampaign(db, query, query.campaignId);
    if (byCampaign) return byCampaign;
  }
  if (query.point) {
    const byPoint = await matchByPoint(db, query, query.point, geoRadiusMeters);
    if (byPoint) return byPoint;
  }
  return matchByAddress(db, query);
}

/**
 * The pieces on the home's street (the mail_pieces_by_street index), of which `sameHome` keeps the
 * home's own: written with or without its city or ZIP, or with a neighbourhood's or borough's name
 * ("HOLLYWOOD CA 90028" is "LOS ANGELES CA 90028"), which no list of the home's keys holds.
 */
export const onStreetOf = (normalizedAddress: string) =>
  sql`split_part(normalized_address, ', ', 1) = ${streetOfKey(normalizedAddress)}`;

/** The first of `rows` (newest first) that is the home at `normalizedAddress`. */
const firstAtHome = <Row extends { normalized_address: string }>(rows: Row[], normalizedAddress: string) =>
  rows.find((row) => sameHome(row.normalized_address, normalizedAddress));

/** The named campaign's piece at this home if it has one, else its latest piece in the window. */
async function matchByCampaign(db: Queryable, query: MatchQuery, campaignId: string) {
  const { orgId, window } = query;
  const onStreet = await queryRows<PieceRow & { normalized_address: string }>(
    db,
    sql`SELECT id, campaign_id, mailed_at, normalized_address FROM mail_pieces
        WHERE org_id = ${orgId} AND ${onStreetOf(query.normalizedAddress)}
          AND mailed_at IS NOT NULL AND ${mailedWithin(window)}
          AND campaign_id = ${campaignId}::uuid
        ORDER BY mailed_at DESC LIMIT ${STREET_CANDIDATES}`,
  );
  const atAddress = firstAtHome(onStreet, query.normalizedAddress);
  if (atAddress) return toMatch(atAddress, "campaign_id", "exact");
  const latest = await queryOne<PieceRow>(
    db,
    sql`SELECT id, campaign_id, mailed_at FROM mail_pieces
        WHERE org_id = ${orgId} AND campaign_id = ${campaignId}::uuid
          AND mailed_at IS NOT NULL AND ${mailedWithin(window)}
        ORDER BY mailed_at DESC LIMIT 1`,
  );
  return latest ? toMatch(latest, "campaign_id", "exact", false) : undefined;
}

/**
 * A bounding box on the (org_id, latitude, longitude) index narrows the candidates to a few
 * rows; the haversine distance then keeps those truly within the radius.
 */
async function matchByPoint(db: Queryable, query: MatchQuery, point: GeoPoint, radiusMeters: number) {
  const { orgId, window } = query;
  const latDelta = radiusMeters / METERS_PER_DEGREE_LAT;
  const lngDelta =
    radiusMeters / (METERS_PER_DEGREE_LAT * Math.max(Math.cos((point.lat * Math.PI) / 180), 0.01));
  const row = await queryOne<PieceRow>(
    db,
    sql`SELECT id, campaign_id, mailed_at, geo_precision FROM mail_pieces
        WHERE org_id = ${orgId}
          AND mailed_at IS NOT NULL AND latitude IS NOT NULL
          AND latitude BETWEEN ${point.lat - latDelta}::float8 AND ${point.lat + latDelta}::float8
          AND longitude BETWEEN ${point.lng - lngDelta}::float8 AND ${point.lng + lngDelta}::float8
          AND ${mailedWithin(window)}
          AND geo_precision IN ('rooftop', 'street')
          AND 2 * ${EARTH_RADIUS_M}::float8 * asin(sqrt(
                power(sin(radians(latitude - ${point.lat}::float8) / 2), 2)
                + cos(radians(${point.lat}::float8)) * cos(radians(latitude))
                  * power(sin(radians(longitude - ${point.lng}::float8) / 2), 2)
              )) <= ${radiusMeters}::float8
        ORDER BY mailed_at DESC LIMIT 1`,
  );
  if (!row) return undefined;
  const bothRooftop = point.precision === "rooftop" && row.geo_precision === "rooftop";
  return toMatch(row, "geo", bothRooftop ? "high" : "medium");
}

/** The home's latest piece: `high` under the equal key, `medium` under another writing of it. */
async function matchByAddress(db: Queryable, query: MatchQuery) {
  const { orgId, window } = query;
  const onStreet = await queryRows<PieceRow & { normalized_address: string }>(
    db,
    sql`SELECT id, campaign_id, mailed_at, normalized_address FROM mail_pieces
        WHERE org_id = ${orgId} AND ${onStreetOf(query.normalizedAddress)}
          AND mailed_at IS NOT NULL AND ${mailedWithin(window)}
        ORDER BY mailed_at DESC LIMIT ${STREET_CANDIDATES}`,
  );
  const row = firstAtHome(onStreet, query.normalizedAddress);
  if (!row) return undefined;
  return toMatch(row, "address", row.normalized_address === query.normalizedAddress ? "high" : "medium");
}

/**
 * SQL for the attribution type of a match: `direct` when the piece's landing page produced a lead,
 * else `indirect`. An expression, so the statement that stores the match decides it in the same
 * round trip.
 */
export function attributionTypeSql(orgId: string, match: PieceMatch) {
  // Another home's landing-page lead says nothing about this deal.
  if (!match.sameHome) return sql`'indirect'`;
  const pieceId = match.pieceId;
  return sql`CASE WHEN EXISTS (
      SELECT 1 FROM leads
      WHERE org_id = ${orgId}::uuid AND piece_id = ${pieceId}::uuid AND source = 'landing_page'
    ) THEN 'direct' ELSE 'indirect' END`;
}

/**
 * The address as a point for geo matching, when the geocoder places it at rooftop or street
 * precision. A geocoder failure is not the caller's problem: matching falls back to the
 * normalized key, so it is logged and the point is simply absent.
 */
export async function locateForMatching(
  geocoder: Geocoder | undefined,
  address: string,
  logger: Logger,
): Promise<GeoPoint | undefined> {
  if (!geocoder) return undefined;
  try {
    const result = await geocoder.geocode(address);
    if (!result.found) return undefined;
    if (result.precision !== "rooftop" && result.precision !== "street") return undefined;
    return { lat: result.lat, lng: result.lng, precision: result.precision };
  } catch (error) {
    logger.warn({ err: error }, "geocoding for attribution failed; matching by normalized address only");
    return undefined;
  }
}
