import type { Address } from "../domain/address.ts";

/**
 * The geocoding contract every adapter (local, nominatim, census) implements. Adapters live
 * beside this file; `createGeocoder(config)` (geo/index.ts) picks one by GEOCODER.
 */
export type GeoPrecision = "rooftop" | "street" | "postcode" | "locality";

export interface GeocodeHit {
  found: true;
  lat: number;
  lng: number;
  precision: GeoPrecision;
  parts: Address;
}

export type GeocodeResult = GeocodeHit | { found: false };

/** The geocoder answered with an error (→ 502 geocoding_failed). */
export class GeocoderFailedError extends Error {
  override readonly name = "GeocoderFailedError";
}

/** The geocoder could not be reached or timed out (→ 503 geocoding_unavailable). */
export class GeocoderUnavailableError extends Error {
  override readonly name = "GeocoderUnavailableError";
}

export interface Geocoder {
  readonly provider: string;
  /** Throws GeocoderFailedError / GeocoderUnavailableError; not-found is a result, not an error. */
  geocode(address: string): Promise<GeocodeResult>;
  /** Many addresses with bounded concurrency (or a batch API); results in input order. */
  geocodeMany(addresses: readonly string[]): Promise<GeocodeResult[]>;
}
