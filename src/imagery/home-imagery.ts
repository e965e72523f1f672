/**
 * Where the front of a postcard gets the picture of the recipient's home. HOME_IMAGERY picks the
 * adapter (imagery/index.ts): `placeholder` (offline), `streetview`, `mapbox`.
 */
export interface HomeLocation {
  /** The one-line address. */
  address: string;
  street: string | null;
  city: string | null;
  /** Present once the piece is geocoded. */
  latitude: number | null;
  longitude: number | null;
}

export interface HomeImage {
  /** Which adapter produced the bytes (a remote adapter may fall back to the placeholder). */
  source: "placeholder" | "streetview" | "mapbox";
  /** SVG, PNG or JPEG: whatever sharp reads. */
  bytes: Buffer;
  /** The street to letter on the picture's sign (the placeholder's, drawn over its shared scene). */
  streetSign?: string;
}

export interface HomeImagery {
  readonly name: "placeholder" | "streetview" | "mapbox";
  /**
   * What identifies the picture fetchImage answers for the location, without fetching it: two
   * locations with one key get the same picture (a kept card image is checked against it).
   */
  pictureKey(location: HomeLocation): string;
  /** Throws ImageryUnavailableError when the provider cannot be reached or errs (transient). */
  fetchImage(location: HomeLocation, signal?: AbortSignal): Promise<HomeImage>;
}

/** The imagery provider failed or could not be reached; retrying later may succeed. */
export class ImageryUnavailableError extends Error {
  override readonly name = "ImageryUnavailableError";
}
