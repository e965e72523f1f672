import { createHmac, timingSafeEqual } from "node:crypto";
import pino from "pino";
import type { Clock } from "../../src/clock.ts";
import { runPendingJobs } from "../../src/jobs/worker.ts";
import { createDeliveryClient, type DeliveryClient } from "../../src/webhooks/delivery-client.ts";
import { createTargetGuard, type HostResolver } from "../../src/webhooks/target-guard.ts";
import { buildJobCatalog } from "../../src/worker/catalog.ts";
import { admin, call, recordMailing } from "../helpers/api.ts";
import { createTestContext, type TestContext } from "../helpers/harness.ts";

export const silentLogger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

/** A resolver the test controls: each name answers what the test last said. */
export function fakeResolver(initial: Record<string, string[]> = {}) {
  const answers = new Map(Object.entries(initial));
  const resolve: HostResolver = async (hostname) => {
    const found = answers.get(hostname.toLowerCase());
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }) as const);
  };
  return {
    resolve,
    set: (hostname: string, addresses: string[]) => answers.set(hostname.toLowerCase(), addresses),
  };
}

export interface LeadsTestContext extends TestContext {
  resolver: ReturnType<typeof fakeResolver>;
}

/** Like createTestContext, plus the webhook resolver and private-target allow-list of the app. */
export async function createLeadsContext(
  options: { clock?: Clock; allowPrivateTargets?: string[]; hosts?: Record<string, string[]> } = {},
): Promise<LeadsTestContext> {
  const resolver = fakeResolver(options.hosts);
  const ctx = await createTestContext({
    ...(options.clock ? { clock: options.clock } : {}),
    config: { webhookAllowPrivateTargets: options.allowPrivateTargets ?? [] },
    resolveHost: resolver.resolve,
  });
  return { ...ctx, resolver };
}

/** The delivery client a worker uses, trusting the receiver's test CA, resolving through the fake. */
export function testDeliveryClient(
  ctx: LeadsTestContext,
  options: {
    ca?: string;
    connectTimeoutMs?: number;
    totalTimeoutMs?: number;
    allowPrivateTargets?: string[];
  } = {},
): DeliveryClient {
  const guard = createTargetGuard({
    resolver: ctx.resolver.resolve,
    allowPrivateTargets: options.allowPrivateTargets ?? ctx.config.webhookAllowPrivateTargets,
  });
  return createDeliveryClient({
    guard,
    logger: silentLogger,
    ca: options.ca,
    connectTimeoutMs: options.connectTimeoutMs ?? 2000,
    totalTimeoutMs: options.totalTimeoutMs ?? 5000,
  });
}

/** A homeowner's landing-page submission, as the delivery tests send it. */
export const NED_LEAD = {
  first_name: "Ned",
  last_name: "Flanders",
  email: "ned@example.com",
  phone: "+1 217 555 0123",
};

/** Runs every due job against the context's database, as a worker process would. */
export function drainJobs(
  ctx: TestContext,
  client: DeliveryClient,
  db = ctx.database.db,
  logger: pino.Logger = silentLogger,
) {
  const deps = { db, clock: ctx.clock, logger };
  return runPendingJobs(deps, buildJobCatalog({ ...deps, deliveryClient: client }));
}

/** One mailed piece of a fresh campaign; returns its landing token. */
export async function mailOnePiece(
  ctx: TestContext,
  orgId: string,
  piece: { address: string; recipient_name?: string } = {
    address: "742 Evergreen Terrace, Springfield, IL 62704",
    recipient_name: "Homer Simpson",
  },
) {
  const mailing = await recordMailing(ctx, orgId, [piece], "Spring roofing");
  return { token: mailing.pieces[0]!.token, campaignId: mailing.campaign_id, pieceId: mailing.pieces[0]!.id };
}

export async function submitLead(ctx: TestContext, token: string, body: Record<string, unknown>) {
  const response = await call(ctx, "POST", `/l/${token}`, { body });
  if (response.status !== 201) throw new Error(`lead capture failed: ${response.status} ${response.text}`);
  return response.body.lead_id as string;
}

export async function subscribe(ctx: TestContext, key: string, targetUrl: string) {
  return call(ctx, "POST", "/api/v1/webhooks/subscribe", { key, body: { target_url: targetUrl } });
}

export async function addLeadField(ctx: TestContext, orgId: string, field: Record<string, unknown>) {
  const created = await admin(ctx, "POST", `/orgs/${orgId}/lead-fields`, field);
  if (created.status !== 201 && created.status !== 200) throw new Error(`lead field: ${created.text}`);
  return created.body;
}

/**
 * The receiver side of the signature, written from the spec and independent of the service's
 * signer: digits-only timestamp, at most 300 s of drift, HMAC over "<timestamp>.<raw bytes>",
 * constant-time comparison.
 */
export function verifySignature(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
  nowSeconds: number,
): boolean {
  const timestamp = headers["x-service-timestamp"];
  const signature = headers["x-service-signature"];
  if (typeof timestamp !== "string" || typeof signature !== "string") return false;
  if (!/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  if (!signature.startsWith("sha256=")) return false;
  const expected = createHmac("sha256", secret)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), raw]))
    .digest();
  const given = Buffer.from(signature.slice("sha256=".length), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
