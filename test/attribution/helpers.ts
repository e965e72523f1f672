import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { queryOne, sql } from "../../src/db/database.ts";
import { createNominatimGeocoder } from "../../src/geo/nominatim.ts";
import { call } from "../helpers/api.ts";
import type { TestContext } from "../helpers/harness.ts";

export const conversion = (ctx: TestContext, key: string, body: unknown) =>
  call(ctx, "POST", "/api/v1/conversions", { key, body });

export const trackingLead = (ctx: TestContext, key: string, body: unknown) =>
  call(ctx, "POST", "/api/v1/tracking/lead", { key, body });

export const customers = (ctx: TestContext, key: string, body: unknown) =>
  call(ctx, "POST", "/api/v1/customers/webhook", { key, body });

/** What the geocoding job does for a piece: store its point and precision. */
export async function placePiece(
  ctx: TestContext,
  pieceId: string,
  point: { lat: number; lng: number; precision: string },
) {
  await ctx.database.db.execute(
    sql`UPDATE mail_pieces SET latitude = ${point.lat}::float8, longitude = ${point.lng}::float8,
          geo_precision = ${point.precision}
        WHERE id = ${pieceId}::uuid`,
  );
}

/** A landing-page lead on a piece (what the landing page writes when a recipient answers). */
export async function landingPageLead(
  ctx: TestContext,
  input: {
    orgId: string;
    id: string;
    campaignId: string;
    pieceId: string;
    address: string;
    normalized: string;
  },
) {
  await ctx.database.db.execute(
    sql`INSERT INTO leads (org_id, id, source, campaign_id, piece_id, first_name, email, full_address,
          normalized_address, attribution_type)
        VALUES (${input.orgId}::uuid, ${input.id}::uuid, 'landing_page', ${input.campaignId}::uuid,
          ${input.pieceId}::uuid, 'Pat', 'pat@example.com', ${input.address}, ${input.normalized}, 'direct')`,
  );
}

export async function count(ctx: TestContext, table: "conversions" | "customers" | "leads", orgId: string) {
  const row = await queryOne<{ n: string | number }>(
    ctx.database.db,
    sql`SELECT count(*) AS n FROM ${sql.raw(table)} WHERE org_id = ${orgId}::uuid`,
  );
  return Number(row?.n ?? 0);
}

export interface FakeNominatim {
  url: string;
  requests: string[];
  /** Answer for a query (the `q` parameter): a Nominatim place, "empty", "error" or "hang". */
  answers: Map<string, NominatimAnswer>;
  close(): Promise<void>;
}

export type NominatimAnswer =
  | { lat: number; lng: number; addresstype: "house" | "road" | "postcode" | "city" }
  | "empty"
  | "error";

/** A loopback server answering /search in Nominatim's jsonv2 format. */
export async function startFakeNominatim(): Promise<FakeNominatim> {
  const requests: string[] = [];
  const answers = new Map<string, NominatimAnswer>();
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const q = url.searchParams.get("q") ?? "";
    requests.push(q);
    const answer = answers.get(q) ?? "empty";
    if (answer === "error") {
      response.writeHead(500, { "content-type": "text/plain" }).end("internal error");
      return;
    }
    const body =
      answer === "empty"
        ? []
        : [
            {
              lat: String(answer.lat),
              lon: String(answer.lng),
              category: "place",
              type: answer.addresstype,
              addresstype: answer.addresstype,
              place_rank: 30,
              address: {
                city: "Springfield",
                postcode: "62701",
                "ISO3166-2-lvl4": "US-IL",
                country_code: "us",
              },
            },
          ];
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const nominatimGeocoder = (url: string, timeoutMs = 2000) =>
  createNominatimGeocoder({ baseUrl: url, timeoutMs, concurrency: 4, userAgent: "porchlight-test" });
