import { createNominatimGeocoder } from "../../src/geo/nominatim.ts";
import { type FakeGeocoderServer, nominatimPlace, startFakeGeocoder } from "../geo/fake-geocoder.ts";
import { type CallOptions, type CallResult, call } from "../helpers/api.ts";
import type { TestContext } from "../helpers/harness.ts";

/**
 * A Nominatim on loopback that places every address at a point derived from its house number,
 * except addresses containing "Nowhere" (not found) and those the test marks as failing; the
 * addresses the test holds are answered once `until` settles.
 */
export async function startImportGeocoder(): Promise<{
  server: FakeGeocoderServer;
  failWhen: (predicate: ((q: string) => boolean) | undefined, status?: number | "hang") => void;
  holdWhen: (predicate: ((q: string) => boolean) | undefined, until?: Promise<void>) => void;
}> {
  let failing: { predicate: (q: string) => boolean; status: number | "hang" } | undefined;
  let holding: { predicate: (q: string) => boolean; until: Promise<void> } | undefined;
  const server = await startFakeGeocoder(async (request) => {
    const q = request.query.get("q") ?? "";
    if (holding?.predicate(q)) await holding.until;
    if (failing?.predicate(q))
      return failing.status === "hang" ? "hang" : { status: failing.status, body: {} };
    if (/Nowhere/.test(q)) return { status: 200, body: [] };
    const number = Number(/^(\d+)/.exec(q)?.[1] ?? 0);
    return { status: 200, body: [nominatimPlace(39 + number / 10_000, -89.6, "building")] };
  });
  return {
    server,
    failWhen: (predicate, status = 500) => {
      failing = predicate ? { predicate, status } : undefined;
    },
    holdWhen: (predicate, until = Promise.resolve()) => {
      holding = predicate ? { predicate, until } : undefined;
    },
  };
}

export const importGeocoder = (server: FakeGeocoderServer, timeoutMs = 2000) =>
  createNominatimGeocoder({ baseUrl: server.url, timeoutMs, concurrency: 8, userAgent: "porchlight-test" });

export function rows(
  count: number,
  make: (n: number) => Record<string, unknown> = (n) => ({
    address: `${n + 1} Main St, Springfield, IL 62701`,
  }),
) {
  return Array.from({ length: count }, (_, n) => make(n));
}

export const postImport = (
  ctx: TestContext,
  key: string,
  body: unknown,
  options: { idempotencyKey?: string } & CallOptions = {},
): Promise<CallResult> =>
  call(ctx, "POST", "/api/v1/import/jobs", {
    key,
    body,
    headers: options.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey },
  });
