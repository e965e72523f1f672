import type { HomeImage, HomeImagery } from "./home-imagery.ts";
import { placeholderImage, placeholderPictureKey } from "./placeholder.ts";
import { imageBytes, imageryGet } from "./remote.ts";

export interface MapboxOptions {
  token: string;
  /** `https://api.mapbox.com` (tests: a loopback fake). */
  baseUrl: string;
}

/**
 * Mapbox Static Images API, satellite style, a pin on the home. It needs coordinates: a piece
 * that could not be geocoded gets the placeholder.
 */
export function createMapboxImagery(options: MapboxOptions): HomeImagery {
  return {
    name: "mapbox",
    pictureKey: (location) =>
      location.latitude === null || location.longitude === null
        ? placeholderPictureKey(location)
        : `mapbox:${location.longitude},${location.latitude}`,
    async fetchImage(location, signal): Promise<HomeImage> {
      if (location.latitude === null || location.longitude === null) {
        return placeholderImage(location);
      }
      const point = `${location.longitude},${location.latitude}`;
      const path = `/styles/v1/mapbox/satellite-streets-v12/static/pin-l-home+e4572e(${point})/${point},18.5,0/1000x720@2x`;
      const url = `${options.baseUrl}${path}?${new URLSearchParams({ access_token: options.token, attribution: "false", logo: "false" })}`;
      const response = await imageryGet(url, "Mapbox static image", signal);
      return { source: "mapbox", bytes: await imageBytes(response, "Mapbox static image") };
    },
  };
}
