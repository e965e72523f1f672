import { parseUsAddress } from "../domain/address.ts";
import { zipPlaces } from "../domain/zip-places.ts";
import { createLoopSlicer } from "../event-loop-slices.ts";
import type { GeocodeResult, Geocoder } from "./geocoder.ts";

/**
 * The offline default: the address parser plus the `zipcodes` package's ZIP and city centroids.
 * Precision is honest: a ZIP centroid is `postcode`, a city centroid is `locality`; it never
 * claims a street or rooftop point, so geo attribution (rooftop/street only) never fires on it.
 */
export function createLocalGeocoder(): Geocoder {
  const geocode = async (address: string): Promise<GeocodeResult> => locate(address);
  return {
    provider: "local",
    geocode,
    geocodeMany: async (addresses) => {
      const slicer = createLoopSlicer();
      const results: GeocodeResult[] = [];
      for (const address of addresses) {
        await slicer.giveWay();
        results.push(locate(address));
      }
      return results;
    },
  };
}

function locate(address: string): GeocodeResult {
  const parts = parseUsAddress(address);
  const byZip = parts.zip ? zipPlaces.lookup(parts.zip) : undefined;
  if (byZip) {
    return {
      found: true,
      lat: byZip.latitude,
      lng: byZip.longitude,
      precision: "postcode",
      parts: { ...parts, city: parts.city || byZip.city.toUpperCase(), state: parts.state || byZip.state },
    };
  }
  if (parts.city && parts.state) {
    const places = zipPlaces.lookupByName(parts.city, parts.state);
    if (places.length > 0) {
      const lat = places.reduce((sum, place) => sum + place.latitude, 0) / places.length;
      const lng = places.reduce((sum, place) => sum + place.longitude, 0) / places.length;
      return { found: true, lat, lng, precision: "locality", parts };
    }
  }
  return { found: false };
}
