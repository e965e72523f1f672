import { and, eq, inArray, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Queryable } from "../db/database.ts";
import { geocodeCache } from "../db/schema.ts";
import { normalizeAddress } from "../domain/address.ts";
import { createLoopSlicer } from "../event-loop-slices.ts";
import type { GeocodeHit, GeocodeResult, Geocoder } from "./geocoder.ts";

/** The cache never holds more keys per lookup than this (one IN list per chunk). */
const LOOKUP_CHUNK = 500;

/**
 * Answers a remote geocoder gave, per provider and normalized address, in `geocode_cache`. A
 * not-found answer is cached too (as NULL), so an unknown address costs one call. Errors are never
 * cached. Addresses with the same key are geocoded once per call.
 */
export function withGeocodeCache(inner: Geocoder, deps: { db: Queryable; logger: Logger }): Geocoder {
  const { db, logger } = deps;

  const lookup = async (keys: string[]): Promise<Map<string, GeocodeResult>> => {
    const found = new Map<string, GeocodeResult>();
    for (let start = 0; start < keys.length; start += LOOKUP_CHUNK) {
      const rows = await db
        .select({ key: geocodeCache.normalizedAddress, result: geocodeCache.result })
        .from(geocodeCache)
        .where(
          and(
            eq(geocodeCache.provider, inner.provider),
            inArray(geocodeCache.normalizedAddress, keys.slice(start, start + LOOKUP_CHUNK)),
          ),
        );
      for (const row of rows) found.set(row.key, (row.result as GeocodeHit | null) ?? { found: false });
    }
    return found;
  };

  const store = async (entries: [string, GeocodeResult][]) => {
    if (entries.length === 0) return;
    try {
      await db
        .insert(geocodeCache)
        .values(
          entries.map(([key, result]) => ({
            provider: inner.provider,
            normalizedAddress: key,
            result: result.found ? result : null,
          })),
        )
        .onConflictDoUpdate({
          target: [geocodeCache.provider, geocodeCache.normalizedAddress],
          set: { result: sql`excluded.result`, createdAt: sql`now()` },
        });
    } catch (error) {
      // A cache write failing must not fail the geocode it would have saved.
      logger.warn({ err: error }, "geocode cache write failed");
    }
  };

  const geocodeMany = async (addresses: readonly string[]): Promise<GeocodeResult[]> => {
    // An import's 500 addresses are keyed on its request: other requests get in between.
    const slicer = createLoopSlicer();
    const keys: string[] = [];
    for (const address of addresses) {
      await slicer.giveWay();
      keys.push(normalizeAddress(address));
    }
    const cached = await lookup([...new Set(keys)]);
    const missing = new Map<string, string>();
    keys.forEach((key, index) => {
      if (!cached.has(key) && !missing.has(key)) missing.set(key, addresses[index] as string);
    });
    if (missing.size > 0) {
      const answers = await inner.geocodeMany([...missing.values()]);
      const fresh = [...missing.keys()].map(
        (key, index) => [key, answers[index] as GeocodeResult] as [string, GeocodeResult],
      );
      await store(fresh);
      for (const [key, result] of fresh) cached.set(key, result);
    }
    return keys.map((key) => cached.get(key) as GeocodeResult);
  };

  return {
    provider: inner.provider,
    geocode: async (address) => (await geocodeMany([address]))[0] as GeocodeResult,
    geocodeMany,
  };
}
