import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
}

/** What the fake answers to one request: a status and a body, or silence (a hang). */
export type FakeAnswer = { status: number; body: unknown; contentType?: string } | "hang";

export interface FakeGeocoderServer {
  url: string;
  requests: FakeRequest[];
  /** Requests in flight right now, and the most seen at once. */
  maxInFlight: number;
  setHandler(handler: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>): void;
  close(): Promise<void>;
}

/** A geocoder on loopback (the edge of the system): answers whatever the test tells it to. */
export async function startFakeGeocoder(
  handler: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>,
): Promise<FakeGeocoderServer> {
  let current = handler;
  let inFlight = 0;
  const hanging = new Set<ServerResponse>();
  const state = { maxInFlight: 0 };
  const requests: FakeRequest[] = [];

  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://fake");
    const request = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(request);
    const answer = await current(request);
    if (answer === "hang") {
      hanging.add(res);
      res.on("close", () => {
        inFlight--;
        hanging.delete(res);
      });
      return;
    }
    const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, { "content-type": answer.contentType ?? "application/json" });
    res.end(text, () => {
      inFlight--;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxInFlight() {
      return state.maxInFlight;
    },
    setHandler(next) {
      current = next;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on (bound, then closed): connecting to it is refused. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** One Nominatim jsonv2 place, as /search?format=jsonv2&addressdetails=1 answers it. */
export function nominatimPlace(
  lat: number,
  lng: number,
  addresstype: string,
  address: Record<string, string> = {},
) {
  return {
    place_id: 1,
    lat: String(lat),
    lon: String(lng),
    category: addresstype === "road" ? "highway" : "building",
    type: addresstype === "road" ? "residential" : "yes",
    place_rank: ({ road: 26, postcode: 21, city: 16 } as Record<string, number>)[addresstype] ?? 30,
    addresstype,
    display_name: "somewhere",
    address: { country_code: "us", ...address },
  };
}

/** The census one-line answer with one match (or none when lat is undefined). */
export function censusOneLine(match?: { lat: number; lng: number; matchedAddress: string }) {
  return {
    result: {
      input: { benchmark: { benchmarkName: "Public_AR_Current" } },
      addressMatches: match
        ? [{ matchedAddress: match.matchedAddress, coordinates: { x: match.lng, y: match.lat } }]
        : [],
    },
  };
}
