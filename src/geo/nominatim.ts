import { type Address, parseUsAddress } from "../domain/address.ts";
import { mapWithConcurrency } from "./concurrency.ts";
import { type GeocodeResult, type Geocoder, GeocoderFailedError, type GeoPrecision } from "./geocoder.ts";
import { fetchGeocoder, parseJson, type RemoteOptions, readBody } from "./http.ts";

/** One place of Nominatim's jsonv2 answer (only the fields we read). */
interface NominatimPlace {
  lat?: string;
  lon?: string;
  category?: string;
  type?: string;
  addresstype?: string;
  place_rank?: number;
  address?: Record<string, string | undefined>;
}

const ROOFTOP_TYPES = new Set(["house", "building", "residential_building", "apartments", "detached"]);
const STREET_TYPES = new Set(["road", "street", "highway", "residential", "service", "tertiary"]);
const POSTCODE_TYPES = new Set(["postcode", "postal_code"]);
const LOCALITY_TYPES = new Set([
  "city",
  "town",
  "village",
  "hamlet",
  "suburb",
  "neighbourhood",
  "quarter",
  "municipality",
  "county",
  "state",
]);

/**
 * Nominatim's `addresstype` (falling back to `type`, then the place rank) says what the point
 * is: a house or building is a rooftop; a road is a street (Nominatim interpolates house numbers
 * onto the road when it has no house); a postcode area; anything larger is a locality.
 */
export function nominatimPrecision(place: NominatimPlace): GeoPrecision {
  for (const kind of [place.addresstype, place.type]) {
    if (!kind) continue;
    if (ROOFTOP_TYPES.has(kind)) return "rooftop";
    if (STREET_TYPES.has(kind)) return "street";
    if (POSTCODE_TYPES.has(kind)) return "postcode";
    if (LOCALITY_TYPES.has(kind)) return "locality";
  }
  const rank = place.place_rank ?? 0;
  if (rank >= 30) return "rooftop";
  if (rank >= 26) return "street";
  return "locality";
}

function stateCode(address: Record<string, string | undefined>): string {
  const iso = address["ISO3166-2-lvl4"];
  return iso?.startsWith("US-") ? iso.slice(3) : "";
}

/** Our parse of the input, completed with the locality the geocoder found. */
function partsFrom(input: string, place: NominatimPlace): Address {
  const parsed = parseUsAddress(input);
  const found = place.address ?? {};
  const city = found.city ?? found.town ?? found.village ?? found.hamlet ?? "";
  const zip = /^\d{5}/.exec(found.postcode ?? "")?.[0] ?? "";
  return {
    street: parsed.street,
    city: parsed.city || city.toUpperCase(),
    state: parsed.state || stateCode(found),
    zip: parsed.zip || zip,
    country: "US",
  };
}

function toResult(input: string, body: unknown): GeocodeResult {
  if (!Array.isArray(body)) throw new GeocoderFailedError("nominatim answered with an unexpected shape");
  const place = body[0] as NominatimPlace | undefined;
  if (!place) return { found: false };
  const lat = Number(place.lat);
  const lng = Number(place.lon);
  if (!Number.isFinite(lat) || !Number.isFinite(lng)) {
    throw new GeocoderFailedError("nominatim answered a place without coordinates");
  }
  return { found: true, lat, lng, precision: nominatimPrecision(place), parts: partsFrom(input, place) };
}

/** GEOCODER=nominatim: a self-hosted or public Nominatim at GEOCODER_URL. */
export function createNominatimGeocoder(options: RemoteOptions): Geocoder {
  const base = options.baseUrl.replace(/\/+$/, "");
  const geocode = async (address: string): Promise<GeocodeResult> => {
    const query = new URLSearchParams({
      q: address,
      format: "jsonv2",
      addressdetails: "1",
      limit: "1",
      countrycodes: "us",
    });
    const response = await fetchGeocoder(`${base}/search?${query}`, { method: "GET" }, options);
    return toResult(address, parseJson(await readBody(response)));
  };
  return {
    provider: "nominatim",
    geocode,
    geocodeMany: (addresses) => mapWithConcurrency(addresses, options.concurrency, geocode),
  };
}
