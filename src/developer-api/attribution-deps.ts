import type { AttributionDeps } from "../attribution/deps.ts";
import type { Services } from "../services.ts";

/** What attribution needs, from the route services. */
export function attributionDeps(services: Services): AttributionDeps {
  return {
    db: services.db,
    clock: services.clock,
    logger: services.logger,
    geocoder: services.geocoder,
    geoRadiusMeters: services.config.attributionGeoRadiusMeters,
  };
}
