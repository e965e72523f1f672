import assert from "node:assert/strict";
import pino from "pino";
import type { Clock } from "../../src/clock.ts";
import type { HubSpotAppConfig } from "../../src/config.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { hubspotEventHandler } from "../../src/hubspot/job-handler.ts";
import { signHubSpotRequest } from "../../src/hubspot/signature.ts";
import { createJobCatalog } from "../../src/jobs/job-kind.ts";
import { runPendingJobs } from "../../src/jobs/worker.ts";
import { type AppResponse, createAppTestContext, type SignedInUser } from "../app-api/helpers.ts";
import type { FakeHubSpot } from "../helpers/fake-hubspot.ts";
import type { TestContext } from "../helpers/harness.ts";

export const API = "/app/api/v1";
export const WEBHOOK_PATH = "/connectors/hubspot/webhooks";
/** testConfig's PUBLIC_BASE_URL: HubSpot signs the URL it was given, this one. */
export const WEBHOOK_URI = `http://porchlight.test${WEBHOOK_PATH}`;

const silent = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

export type HubSpotTestContext = TestContext & { hubspot: HubSpotAppConfig };

export async function createHubSpotContext(fake: FakeHubSpot, clock: Clock): Promise<HubSpotTestContext> {
  const ctx = await createAppTestContext({ clock, config: { hubspot: fake.config } });
  return { ...ctx, hubspot: fake.config };
}

/** The path and query of an absolute URL (the test browser speaks to the app by path). */
export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** Where the callback sent the browser: the `hubspot` outcome of Settings → Connections. */
export function outcomeOf(answer: AppResponse): string | null {
  assert.equal(answer.status, 303, answer.text);
  const location = new URL(String(answer.headers.location), "http://porchlight.test");
  assert.equal(location.pathname, "/app/settings");
  assert.equal(location.searchParams.get("tab"), "connections");
  return location.searchParams.get("hubspot");
}

export async function startConnect(user: SignedInUser): Promise<string> {
  const started = await user.browser.request("POST", `${API}/connectors/hubspot/connect`);
  assert.equal(started.status, 200, started.text);
  return started.body.authorize_url as string;
}

/** The whole connect: the owner starts it, grants access on (fake) HubSpot and comes back. */
export async function connectHubSpot(fake: FakeHubSpot, owner: SignedInUser): Promise<void> {
  const callback = fake.grant(await startConnect(owner));
  assert.equal(outcomeOf(await owner.browser.request("GET", pathOf(callback))), "connected");
}

/** The headers HubSpot sends with a body: the v3 signature (the app's secret) and its timestamp. */
export function signedHeaders(
  ctx: HubSpotTestContext,
  rawBody: Buffer,
  options: { timestamp?: number; secret?: string; uri?: string } = {},
) {
  const timestamp = String(options.timestamp ?? ctx.clock.now().getTime());
  const signature = signHubSpotRequest(options.secret ?? ctx.hubspot.clientSecret, {
    method: "POST",
    uri: options.uri ?? WEBHOOK_URI,
    rawBody,
    timestamp,
  });
  return {
    "content-type": "application/json",
    "x-hubspot-signature-v3": signature,
    "x-hubspot-request-timestamp": timestamp,
  };
}

/** One webhook request as HubSpot sends it: the JSON array (or `payload` as is), signed. */
export function postWebhook(
  ctx: HubSpotTestContext,
  events: unknown,
  options: { timestamp?: number; secret?: string; uri?: string; payload?: Buffer } = {},
) {
  const rawBody = options.payload ?? Buffer.from(JSON.stringify(events));
  return ctx.app.inject({
    method: "POST",
    url: WEBHOOK_PATH,
    headers: signedHeaders(ctx, rawBody, options),
    payload: rawBody,
  });
}

let nextEventId = 1_000;

/** One event of a webhook request, with HubSpot's fields (docs/hubspot.md). */
export function hubspotEvent(
  fake: FakeHubSpot,
  clock: Clock,
  subscriptionType: string,
  objectId: number,
  extra: { propertyName?: string; propertyValue?: string; eventId?: number; portalId?: number } = {},
) {
  return {
    eventId: extra.eventId ?? ++nextEventId,
    subscriptionId: 234_567,
    portalId: extra.portalId ?? fake.portalId,
    appId: 456_789,
    occurredAt: clock.now().getTime() - 1_000,
    subscriptionType,
    attemptNumber: 0,
    objectId,
    changeSource: "CRM_UI",
    ...(extra.propertyName ? { propertyName: extra.propertyName, propertyValue: extra.propertyValue } : {}),
  };
}

/** Runs the due HubSpot event jobs as a worker process would. */
export function runHubSpotJobs(ctx: HubSpotTestContext) {
  const catalog = createJobCatalog([
    hubspotEventHandler({
      config: { ...ctx.config, hubspot: ctx.hubspot },
      database: ctx.database,
      clock: ctx.clock,
      logger: silent,
      geocoder: createLocalGeocoder(),
    }),
  ]);
  return runPendingJobs({ db: ctx.database.db, clock: ctx.clock, logger: silent }, catalog);
}
