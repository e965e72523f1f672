import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import jsQRModule, { type QRCode } from "jsqr";
import pino from "pino";
import sharp from "sharp";
import type { Config } from "../../src/config.ts";
import { type Queryable, queryOne, queryRows, sql } from "../../src/db/database.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createHomeImagery } from "../../src/imagery/index.ts";
import { createJobCatalog } from "../../src/jobs/job-kind.ts";
import { runPendingJobs } from "../../src/jobs/worker.ts";
import { mailSafetyGates } from "../../src/mail-safety/piece-checks.ts";
import { neighbourFanoutHandler } from "../../src/neighbours/neighbour-fanout.ts";
import { pipelineJobHandlers } from "../../src/pieces/job-handlers.ts";
import { admin, call, createAutomation, createOrg } from "../helpers/api.ts";
import { ADMIN_TOKEN, type TestContext } from "../helpers/harness.ts";
import { insertPendingPieces } from "../helpers/pieces.ts";

type DecodeQr = (data: Uint8ClampedArray, width: number, height: number) => QRCode | null;
// jsqr is CommonJS; under ESM its default export may arrive wrapped once more.
const jsQR = ((jsQRModule as unknown as { default?: DecodeQr }).default ?? jsQRModule) as unknown as DecodeQr;

export const EVENT_TYPE = "job.completed";

/** A record's home in Springfield, IL (the fake geocoder's town), for Jane Smith. */
export const home = (street: string) => ({
  street,
  city: "Springfield",
  state: "IL",
  zip: "62704",
  client_name: "Jane Smith",
});
export const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

export const tempDataDir = () => mkdtempSync(path.join(tmpdir(), "porchlight-pipeline-"));

/** An org with an automation bound to job.completed; `automation` adds fields (suppress_customers…). */
export async function orgWithAutomation(ctx: TestContext, automation: Record<string, unknown> = {}) {
  const org = await createOrg(ctx, { name: "Bright Roofing Co." });
  const created = await createAutomation(ctx, org.orgId, {
    name: "Completed jobs",
    trigger: { type: "custom_api", event_type: EVENT_TYPE },
    ...automation,
  });
  return { ...org, automationId: created.id };
}

/**
 * One live event that queues one piece. By default the piece is then written as a worker's first
 * step would, and returned as the operator API lists it; with `writePiece: false` it stays in its
 * job's payload (a worker writes it) and is returned from there.
 */
export async function queuePiece(
  ctx: TestContext,
  org: { orgId: string; key: string },
  properties: Record<string, string> = {
    street: "412 Maple Ave",
    city: "Springfield",
    state: "IL",
    zip: "62704",
    client_name: "Jane Smith",
  },
  options: { writePiece?: boolean; eventType?: string } = {},
) {
  const dedupId = `dedup-${randomUUID()}`;
  const sent = await call(ctx, "POST", "/api/v1/events", {
    key: org.key,
    body: {
      event_type: options.eventType ?? EVENT_TYPE,
      object_type: "job",
      dedup_id: dedupId,
      record: { id: `rec-${randomUUID().slice(0, 8)}`, properties },
    },
  });
  assert.equal(sent.status, 202, sent.text);
  assert.equal(sent.body.outcomes[0]?.reason, "queued", sent.text);
  // The answer names the campaign only by its dedup key; its job carries the piece.
  const queued = await queryOne<{ id: string; token: string }>(
    ctx.database.db,
    sql`SELECT j.payload->>'piece_id' AS id, j.payload->'piece'->>'token' AS token
        FROM campaigns c JOIN jobs j ON j.org_id = c.org_id AND j.payload->'piece'->>'campaign_id' = c.id::text
        WHERE c.org_id = ${org.orgId} AND c.dedup_key = ${dedupId}`,
  );
  assert.ok(queued, `no job carries the piece of ${dedupId}`);
  if (options.writePiece === false) {
    const { id, token } = queued;
    return { id, token, landing_url: `${ctx.config.publicBaseUrl}/l/${token}`, status: "queued" };
  }
  await insertPendingPieces(ctx.database.db);
  const listed = await admin(ctx, "GET", `/orgs/${org.orgId}/campaigns`);
  const piece = listed.body.campaigns
    .flatMap((campaign: { pieces: unknown[] }) => campaign.pieces)
    .find((candidate: { id: string }) => candidate.id === queued.id);
  assert.ok(piece, `piece ${queued.id} is not listed`);
  return piece as { id: string; landing_url: string; token: string; status: string };
}

/**
 * Runs every due pipeline job with the given configuration, as a worker process would; `batchSize`
 * 1 runs them one at a time.
 */
export function runPipeline(
  ctx: TestContext,
  config: Partial<Config>,
  db: Queryable = ctx.database.db,
  automationsPaused?: () => Promise<boolean>,
  options: { batchSize?: number } = {},
) {
  const merged = { ...ctx.config, ...config };
  const deps = {
    db,
    clock: ctx.clock,
    logger,
    config: merged,
    imagery: createHomeImagery(merged),
    geocoder: createLocalGeocoder(),
    renderer: ctx.renderer,
    safetyGates: mailSafetyGates,
  };
  // The worker's catalog registers the neighbour fan-out beside the piece pipeline (src/worker/catalog.ts).
  const catalog = createJobCatalog([...pipelineJobHandlers(deps), neighbourFanoutHandler(deps)]);
  return runPendingJobs({ db, clock: ctx.clock, logger, automationsPaused }, catalog, options);
}

export interface PieceRow {
  status: string;
  mailed_at: Date | string | null;
  provider: string | null;
  provider_id: string | null;
  provider_status: string | null;
  status_reason: string | null;
  latitude: number | null;
  normalized_address: string | null;
}

export const pieceRow = (ctx: TestContext, pieceId: string) =>
  queryOne<PieceRow>(
    ctx.database.db,
    sql`SELECT status, mailed_at, provider, provider_id, provider_status, status_reason, latitude,
               normalized_address
        FROM mail_pieces WHERE id = ${pieceId}`,
  ).then((row) => row!);

export const jobsOf = (ctx: TestContext, pieceId: string) =>
  queryRows<{
    id: string;
    kind: string;
    status: string;
    attempts: number;
    last_error: string | null;
    run_at: Date | string;
  }>(
    ctx.database.db,
    sql`SELECT id, kind, status, attempts, last_error, run_at FROM jobs WHERE payload->>'piece_id' = ${pieceId}`,
  );

/** Raw bytes of an operator route (the shared `call` helper reads bodies as text). */
export async function adminBytes(ctx: TestContext, url: string) {
  const response = await ctx.app.inject({
    method: "GET",
    url: `/admin/v1${url}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return { status: response.statusCode, type: response.headers["content-type"], bytes: response.rawPayload };
}

/** The text of the first QR code jsQR finds in a PNG. */
export async function decodeQr(png: Buffer): Promise<string | undefined> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const code = jsQR(
    new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
    info.width,
    info.height,
  );
  return code?.data;
}

export interface FakeLobRequest {
  /** `/v1/postcards`, or `/v1/us_verifications` (address verification). */
  path: string;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

/** Lob's postcard artboards in points (trim plus 0.125 in bleed), by its size names. */
export const LOB_ARTBOARDS: Record<string, [number, number]> = {
  "4x6": [450, 306],
  "6x9": [666, 450],
  "6x11": [810, 450],
};

/** The first page's width and height in points, read from its MediaBox. */
export function pdfPageSize(pdf: Buffer): [number, number] | undefined {
  const box = pdf.toString("latin1").match(/\/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]/);
  return box ? [Number(box[1]), Number(box[2])] : undefined;
}

/**
 * What the real API answers a postcard whose size is unknown or whose files do not match the
 * size's artboard (it checks every PDF's dimensions): 422, or undefined when the files fit.
 */
async function lobFileProblem(contentType: string | undefined, body: Buffer): Promise<string | undefined> {
  const form = await new Response(new Uint8Array(body), { headers: { "content-type": contentType ?? "" } })
    .formData()
    .catch(() => undefined);
  if (!form) return "the body is not multipart/form-data";
  const size = String(form.get("size") ?? "4x6");
  const artboard = LOB_ARTBOARDS[size];
  if (!artboard) return `size must be one of 4x6, 6x9, 6x11`;
  for (const side of ["front", "back"]) {
    const file = form.get(side);
    if (!(file instanceof Blob)) return `${side} is required`;
    const page = pdfPageSize(Buffer.from(await file.arrayBuffer()));
    if (!page || page[0] !== artboard[0] || page[1] !== artboard[1]) {
      return `${side} has invalid dimensions: a ${size} postcard must be ${artboard[0] / 72}x${artboard[1] / 72} in`;
    }
  }
  return undefined;
}

/**
 * Lob's postcards endpoint on loopback. `respond` decides each answer; by default the files are
 * checked against the size's artboard as Lob does (422 on a mismatch), then a postcard id per
 * idempotency key, the same one on a repeat.
 */
export async function startFakeLob(
  respond?: (request: FakeLobRequest, index: number) => { status: number; body: unknown } | "hang",
) {
  const requests: FakeLobRequest[] = [];
  const postcards = new Map<string, string>();
  const read = (request: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => resolve(Buffer.concat(chunks)));
    });
  const server: Server = createServer(async (request, response) => {
    const body = await read(request);
    const entry: FakeLobRequest = {
      path: request.url ?? "",
      idempotencyKey: request.headers["idempotency-key"] as string | undefined,
      authorization: request.headers.authorization,
      contentType: request.headers["content-type"],
      body,
    };
    requests.push(entry);
    const decided = respond?.(entry, requests.length - 1);
    if (decided === "hang") return;
    const problem = decided ? undefined : await lobFileProblem(entry.contentType, body);
    if (problem) {
      response.writeHead(422, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: problem, status_code: 422 } }));
      return;
    }
    const key = entry.idempotencyKey ?? randomUUID();
    if (!postcards.has(key)) postcards.set(key, `psc_${randomUUID().replace(/-/g, "").slice(0, 24)}`);
    const answer = decided ?? { status: 200, body: { id: postcards.get(key), object: "postcard" } };
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
