import type { Config } from "../config.ts";
import type { HomeImagery } from "./home-imagery.ts";
import { createMapboxImagery } from "./mapbox.ts";
import { createPlaceholderImagery } from "./placeholder.ts";
import { createStreetViewImagery } from "./streetview.ts";

export type ImageryConfig = Pick<
  Config,
  "homeImagery" | "googleMapsApiKey" | "streetViewBaseUrl" | "mapboxToken" | "mapboxBaseUrl"
>;

/** The adapter HOME_IMAGERY names (config validation guarantees its key is present). */
export function createHomeImagery(config: ImageryConfig): HomeImagery {
  if (config.homeImagery === "streetview") {
    return createStreetViewImagery({ apiKey: config.googleMapsApiKey!, baseUrl: config.streetViewBaseUrl });
  }
  if (config.homeImagery === "mapbox") {
    return createMapboxImagery({ token: config.mapboxToken!, baseUrl: config.mapboxBaseUrl });
  }
  return createPlaceholderImagery();
}
