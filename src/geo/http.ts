import { GeocoderFailedError, GeocoderUnavailableError } from "./geocoder.ts";

export interface RemoteOptions {
  baseUrl: string;
  timeoutMs: number;
  concurrency: number;
  userAgent: string;
}

/**
 * One request to a remote geocoder, with its failures typed: no answer in time or no connection
 * is "unavailable" (retry later), an error status is "failed" (the geocoder said no).
 */
export async function fetchGeocoder(
  url: string,
  init: RequestInit,
  options: RemoteOptions,
): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, {
      ...init,
      headers: { "user-agent": options.userAgent, accept: "application/json", ...init.headers },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    throw new GeocoderUnavailableError(`geocoder unreachable: ${describe(error)}`, { cause: error });
  }
  // A throttled geocoder is temporarily unavailable; every other error status is its answer.
  if (response.status === 429) {
    await response.body?.cancel();
    throw new GeocoderUnavailableError("geocoder answered 429 (throttled)");
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new GeocoderFailedError(`geocoder answered ${response.status}`);
  }
  return response;
}

/** Reads the body, typing a timeout mid-body as unavailable and garbage as failed. */
export async function readBody(response: Response): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw new GeocoderUnavailableError(`geocoder response interrupted: ${describe(error)}`, { cause: error });
  }
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new GeocoderFailedError("geocoder answered with a body that is not JSON");
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause as { code?: string } | undefined;
    return cause?.code ? `${error.name} (${cause.code})` : error.name;
  }
  return String(error);
}
