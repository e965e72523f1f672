import type { AddressInfo } from "node:net";
import pino from "pino";
import { runPendingJobs } from "../../src/jobs/worker.ts";
import { createDeliveryClient } from "../../src/webhooks/delivery-client.ts";
import { createTargetGuard } from "../../src/webhooks/target-guard.ts";
import { buildJobCatalog } from "../../src/worker/catalog.ts";
import type { TestContext } from "../helpers/harness.ts";
import { assertMatchesDocument } from "../helpers/openapi-check.ts";

const silent = pino({ level: "silent" });

/** Starts the context's app on a loopback port; returns its base URL. */
export async function listen(ctx: TestContext): Promise<string> {
  await ctx.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = ctx.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/**
 * A fetch for the typed client that checks every answer against the OpenAPI document, as the
 * shared `call` helper does for injected requests, and counts the requests sent.
 */
export function documentCheckingFetch(ctx: TestContext) {
  const sent: Request[] = [];
  const fetch = async (request: Request) => {
    sent.push(request);
    const response = await globalThis.fetch(request);
    const text = await response.clone().text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const url = new URL(request.url);
    assertMatchesDocument(
      ctx.app,
      request.method as "GET",
      `${url.pathname}${url.search}`,
      response.status,
      body,
      Object.fromEntries(response.headers),
    );
    return response;
  };
  return { fetch, sent };
}

/** Runs every due job (the lead deliveries) as a worker would, trusting the test receiver's CA. */
export async function deliverPendingLeads(ctx: TestContext, ca: string) {
  const guard = createTargetGuard({ allowPrivateTargets: ctx.config.webhookAllowPrivateTargets });
  const deliveryClient = createDeliveryClient({
    guard,
    logger: silent,
    ca,
    connectTimeoutMs: 2000,
    totalTimeoutMs: 5000,
  });
  const deps = { db: ctx.database.db, clock: ctx.clock, logger: silent };
  try {
    return await runPendingJobs(deps, buildJobCatalog({ ...deps, deliveryClient }));
  } finally {
    await deliveryClient.close();
  }
}
