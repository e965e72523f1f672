import { type Address, parseUsAddress } from "../domain/address.ts";
import { mapWithConcurrency } from "./concurrency.ts";
import { type GeocodeResult, type Geocoder, GeocoderFailedError } from "./geocoder.ts";
import { fetchGeocoder, parseJson, type RemoteOptions, readBody } from "./http.ts";

export const CENSUS_DEFAULT_URL = "https://geocoding.geo.census.gov/geocoder";
const BENCHMARK = "Public_AR_Current";
/** The batch API takes up to 10,000 lines; smaller chunks keep each request well under its timeout. */
const BATCH_SIZE = 1000;

/** Our parse of the input, completed with the locality of the census's matched address. */
function partsFrom(input: string, matchedAddress: string | undefined): Address {
  const parsed = parseUsAddress(input);
  const matched = matchedAddress ? parseUsAddress(matchedAddress) : undefined;
  return {
    street: parsed.street,
    city: parsed.city || (matched?.city ?? ""),
    state: parsed.state || (matched?.state ?? ""),
    zip: parsed.zip || (matched?.zip ?? ""),
    country: "US",
  };
}

/**
 * The census geocoder interpolates a house number along a TIGER address range: the point is on
 * the right street segment, not on the building, so its precision is `street`, never rooftop.
 */
function hit(input: string, lng: number, lat: number, matchedAddress?: string): GeocodeResult {
  if (!Number.isFinite(lat) || !Number.isFinite(lng)) {
    throw new GeocoderFailedError("census geocoder answered a match without coordinates");
  }
  return { found: true, lat, lng, precision: "street", parts: partsFrom(input, matchedAddress) };
}

interface OneLineAnswer {
  result?: {
    addressMatches?: { matchedAddress?: string; coordinates?: { x?: number; y?: number } }[];
  };
}

function oneLineResult(input: string, body: unknown): GeocodeResult {
  const matches = (body as OneLineAnswer | null)?.result?.addressMatches;
  if (!Array.isArray(matches)) throw new GeocoderFailedError("census geocoder answered an unexpected shape");
  const match = matches[0];
  if (!match) return { found: false };
  return hit(input, Number(match.coordinates?.x), Number(match.coordinates?.y), match.matchedAddress);
}

/** Splits one CSV line with double-quoted fields (the census batch answer's format). */
export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let current = "";
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (quoted) {
      if (char === '"' && line[index + 1] === '"') {
        current += '"';
        index++;
      } else if (char === '"') quoted = false;
      else current += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      fields.push(current);
      current = "";
    } else current += char;
  }
  fields.push(current);
  return fields;
}

const csvField = (value: string) => `"${value.replace(/"/g, '""').replace(/[\r\n]+/g, " ")}"`;

/** The batch request file: `id, street, city, state, zip` per line, parts from our parser. */
function batchFile(addresses: readonly string[]): string {
  return addresses
    .map((address, index) => {
      const parts = parseUsAddress(address);
      return [String(index), parts.street, parts.city, parts.state, parts.zip].map(csvField).join(",");
    })
    .join("\n");
}

/** Answer lines: id, input, Match|No_Match|Tie, Exact|Non_Exact, matched address, "lng,lat", … */
function batchResults(addresses: readonly string[], text: string): GeocodeResult[] {
  const results: GeocodeResult[] = addresses.map(() => ({ found: false }));
  let answered = 0;
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const [id, , status, , matchedAddress, coordinates] = parseCsvLine(line);
    const index = Number(id);
    if (!Number.isInteger(index) || index < 0 || index >= addresses.length) {
      throw new GeocoderFailedError("census batch answered a line that matches no request line");
    }
    answered++;
    if (status !== "Match" || !coordinates) continue;
    const [lng, lat] = coordinates.split(",").map(Number);
    results[index] = hit(addresses[index] as string, lng as number, lat as number, matchedAddress);
  }
  if (answered === 0 && addresses.length > 0) {
    throw new GeocoderFailedError("census batch answered no lines");
  }
  return results;
}

/** GEOCODER=census: the US Census Bureau geocoder (one-line endpoint; batch API for many). */
export function createCensusGeocoder(options: RemoteOptions): Geocoder {
  const base = options.baseUrl.replace(/\/+$/, "");
  const geocode = async (address: string): Promise<GeocodeResult> => {
    const query = new URLSearchParams({ address, benchmark: BENCHMARK, format: "json" });
    const response = await fetchGeocoder(
      `${base}/locations/onelineaddress?${query}`,
      { method: "GET" },
      options,
    );
    return oneLineResult(address, parseJson(await readBody(response)));
  };
  const geocodeBatch = async (chunk: readonly string[]): Promise<GeocodeResult[]> => {
    const form = new FormData();
    form.set("benchmark", BENCHMARK);
    form.set("addressFile", new Blob([batchFile(chunk)], { type: "text/csv" }), "addresses.csv");
    const response = await fetchGeocoder(
      `${base}/locations/addressbatch`,
      { method: "POST", body: form },
      options,
    );
    return batchResults(chunk, await readBody(response));
  };
  return {
    provider: "census",
    geocode,
    geocodeMany: async (addresses) => {
      if (addresses.length === 0) return [];
      if (addresses.length === 1) return [await geocode(addresses[0] as string)];
      const chunks: string[][] = [];
      for (let start = 0; start < addresses.length; start += BATCH_SIZE) {
        chunks.push(addresses.slice(start, start + BATCH_SIZE));
      }
      const answers = await mapWithConcurrency(chunks, options.concurrency, geocodeBatch);
      return answers.flat();
    },
  };
}
