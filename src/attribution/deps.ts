import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import type { Geocoder } from "../geo/geocoder.ts";

/** What attribution needs; callable without HTTP (the events endpoint's contact path uses it). */
export interface AttributionDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  /** Absent: geo matching is skipped and the normalized key decides. */
  geocoder: Geocoder | undefined;
  geoRadiusMeters: number;
}
