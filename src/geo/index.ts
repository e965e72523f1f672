import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import { withGeocodeCache } from "./cache.ts";
import { CENSUS_DEFAULT_URL, createCensusGeocoder } from "./census.ts";
import type { Geocoder } from "./geocoder.ts";
import type { RemoteOptions } from "./http.ts";
import { createLocalGeocoder } from "./local.ts";
import { createNominatimGeocoder } from "./nominatim.ts";

export type GeocoderConfig = Pick<
  Config,
  "geocoder" | "geocoderUrl" | "geocoderConcurrency" | "geocoderTimeoutMs" | "publicBaseUrl"
>;

/**
 * The geocoder GEOCODER names. Remote adapters are wrapped in the `geocode_cache`; the local one
 * is an in-memory lookup and needs no cache.
 */
export function createGeocoder(config: GeocoderConfig, deps: { db: Queryable; logger: Logger }): Geocoder {
  if (config.geocoder === "local") return createLocalGeocoder();
  const options: RemoteOptions = {
    baseUrl: config.geocoderUrl ?? CENSUS_DEFAULT_URL,
    timeoutMs: config.geocoderTimeoutMs,
    concurrency: config.geocoderConcurrency,
    // Nominatim's usage policy asks for an identifying User-Agent.
    userAgent: `porchlight/1.0 (+${config.publicBaseUrl})`,
  };
  const remote =
    config.geocoder === "nominatim" ? createNominatimGeocoder(options) : createCensusGeocoder(options);
  return withGeocodeCache(remote, deps);
}
