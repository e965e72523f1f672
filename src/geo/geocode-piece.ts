import { and, eq } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
import { mailPieces } from "../db/schema.ts";
import type { GeocodeResult, Geocoder, GeoPrecision } from "./geocoder.ts";

export type GeocodePieceOutcome =
  | { status: "located"; lat: number; lng: number; precision: GeoPrecision }
  | { status: "not_found" }
  | { status: "missing_piece" };

/**
 * Fills a mail piece's point (latitude, longitude, geo_precision) from its address; the geocoding
 * job kind calls it so enqueueing never waits on a geocoder. Geocoder errors propagate (typed) so
 * the job can retry; a not-found leaves the point empty and attribution keeps using the
 * normalized address.
 */
export async function geocodePiece(
  deps: { db: Queryable; geocoder: Geocoder },
  orgId: string,
  pieceId: string,
): Promise<GeocodePieceOutcome> {
  const where = and(eq(mailPieces.orgId, orgId), eq(mailPieces.id, pieceId));
  const [piece] = await deps.db.select({ address: mailPieces.address }).from(mailPieces).where(where);
  if (!piece) return { status: "missing_piece" };
  const result: GeocodeResult = await deps.geocoder.geocode(piece.address);
  if (!result.found) return { status: "not_found" };
  await deps.db
    .update(mailPieces)
    .set({ latitude: result.lat, longitude: result.lng, geoPrecision: result.precision })
    .where(where);
  return { status: "located", lat: result.lat, lng: result.lng, precision: result.precision };
}
