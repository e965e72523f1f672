import {
  type HomeImage,
  type HomeImagery,
  type HomeLocation,
  ImageryUnavailableError,
} from "./home-imagery.ts";
import { placeholderImage } from "./placeholder.ts";
import { imageBytes, imageryGet } from "./remote.ts";

export interface StreetViewOptions {
  apiKey: string;
  /** `https://maps.googleapis.com/maps/api/streetview` (tests: a loopback fake). */
  baseUrl: string;
}

/** Where to look: the coordinates when the piece is geocoded, else the address itself. */
const locationParam = (location: HomeLocation) =>
  location.latitude !== null && location.longitude !== null
    ? `${location.latitude},${location.longitude}`
    : location.address;

/**
 * Google Street View Static API. The metadata call (free, no image) comes first: a location
 * without imagery answers ZERO_RESULTS or NOT_FOUND there, and the card gets the placeholder
 * instead of Google's grey "no imagery" tile.
 */
export function createStreetViewImagery(options: StreetViewOptions): HomeImagery {
  const query = (location: HomeLocation, extra: Record<string, string>) =>
    new URLSearchParams({
      location: locationParam(location),
      source: "outdoor",
      key: options.apiKey,
      ...extra,
    });
  return {
    name: "streetview",
    pictureKey: (location) => `streetview:${locationParam(location)}`,
    async fetchImage(location, signal): Promise<HomeImage> {
      const metadata = await imageryGet(
        `${options.baseUrl}/metadata?${query(location, {})}`,
        "Street View metadata",
        signal,
      );
      const { status } = (await metadata.json()) as { status?: string };
      if (status === "ZERO_RESULTS" || status === "NOT_FOUND") {
        return placeholderImage(location);
      }
      if (status !== "OK")
        throw new ImageryUnavailableError(`Street View metadata status ${status ?? "missing"}`);
      const image = await imageryGet(
        `${options.baseUrl}?${query(location, { size: "640x460", fov: "80", return_error_code: "true" })}`,
        "Street View image",
        signal,
      );
      return { source: "streetview", bytes: await imageBytes(image, "Street View image") };
    },
  };
}
