import { AppError } from "../errors.ts";
import { GeocoderFailedError, GeocoderUnavailableError } from "./geocoder.ts";

/** The import table's 503 row ("Geocoder down or kill switch") states `Retry-After: 300` for both codes. */
export const GEOCODER_RETRY_AFTER_SECONDS = 300;

export const geocodingFailed = () =>
  new AppError(502, "geocoding_failed", "the geocoder answered with an error");

export const geocodingUnavailable = () =>
  new AppError(503, "geocoding_unavailable", "the geocoder cannot be reached; retry later", {
    "retry-after": String(GEOCODER_RETRY_AFTER_SECONDS),
  });

/** The typed geocoder errors as the API's errors (502 / 503); anything else is returned as is. */
export function toGeocodingAppError(error: unknown): unknown {
  if (error instanceof GeocoderFailedError) return geocodingFailed();
  if (error instanceof GeocoderUnavailableError) return geocodingUnavailable();
  return error;
}
