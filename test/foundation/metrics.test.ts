import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { type App, buildListenerApps } from "../../src/app.ts";
import { systemClock } from "../../src/clock.ts";
import { sql } from "../../src/db/database.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createMetrics } from "../../src/http/metrics.ts";
import type { RateLimiter } from "../../src/limits/rate-limiter.ts";
import { createRenderPool, type Renderer } from "../../src/render/renderer.ts";
import { createAutomation, createOrg } from "../helpers/api.ts";
import {
  ADMIN_TOKEN,
  appAdapters,
  createTestContext,
  databaseLabel,
  openTestDatabase,
  type TestContext,
  testConfig,
  testLimiter,
} from "../helpers/harness.ts";

const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function scrape(app: App, headers: Record<string, string> = operator) {
  const response = await app.inject({ method: "GET", url: "/metrics", headers });
  return { status: response.statusCode, type: String(response.headers["content-type"]), text: response.body };
}

/** The value of one series in Prometheus text (`name{labels} value`), 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((each) => each.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe(`GET /metrics on one listener (${databaseLabel})`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(async () => ctx.close());

  it("answers 401 without the operator token and with a wrong one", async () => {
    assert.equal((await scrape(ctx.app, {})).status, 401);
    assert.equal((await scrape(ctx.app, { authorization: "Bearer wrong-token-0123456789" })).status, 401);
  });

  it("serves Prometheus text with the porchlight_ metrics, which move after real requests", async () => {
    const org = await createOrg(ctx);
    await createAutomation(ctx, org.orgId, {
      name: "Metrics",
      trigger: { type: "custom_api", event_type: "job.completed", object_type: "job" },
    });
    const before = await scrape(ctx.app);
    assert.equal(before.status, 200);
    assert.match(before.type ?? "", /^text\/plain; version=0\.0\.4/);
    for (const name of [
      "porchlight_http_request_duration_seconds",
      "porchlight_events_accepted_total",
      "porchlight_jobs",
      "porchlight_jobs_oldest_due_age_seconds",
      "porchlight_pieces",
      "porchlight_webhook_deliveries_total",
      "porchlight_render_duration_seconds",
      "porchlight_emails_total",
      "porchlight_process_cpu_seconds_total",
      "porchlight_nodejs_eventloop_lag_seconds",
    ]) {
      assert.match(before.text, new RegExp(`^# TYPE ${name} `, "m"), name);
    }

    const event = (dedupId: string) =>
      ctx.app.inject({
        method: "POST",
        url: "/api/v1/events",
        headers: { authorization: `Bearer ${org.key}`, "content-type": "application/json" },
        payload: JSON.stringify({
          event_type: "job.completed",
          object_type: "job",
          dedup_id: dedupId,
          record: {
            id: dedupId,
            properties: { street: "1600 Pennsylvania Ave NW", city: "Washington", state: "DC", zip: "20500" },
          },
        }),
      });
    assert.equal((await event("metrics-1")).statusCode, 202);
    assert.equal((await event("metrics-1")).statusCode, 202);
    assert.equal((await event("metrics-2")).statusCode, 202);
    // A 4xx, counted under its status class.
    const refused = await ctx.app.inject({ method: "GET", url: "/api/v1/me" });
    assert.equal(refused.statusCode, 401);
    // Pieces written and moved in SQL: the gauge reads the counts kept on write, per status.
    const { db } = ctx.database;
    const campaignId = randomUUID();
    await db.execute(sql`INSERT INTO campaigns (org_id, id, name, origin)
      VALUES (${org.orgId}::uuid, ${campaignId}::uuid, 'Metrics', 'mailing')`);
    await db.execute(sql`INSERT INTO mail_pieces (org_id, id, campaign_id, status, address, token)
      SELECT ${org.orgId}::uuid, gen_random_uuid(), ${campaignId}::uuid, status, '1 Main St, Springfield, IL 62704',
             gen_random_uuid()::text
      FROM unnest(ARRAY['queued', 'queued', 'queued', 'mailed', 'failed']) AS status`);
    await db.execute(sql`UPDATE mail_pieces SET status = 'delivered'
      WHERE org_id = ${org.orgId}::uuid AND status = 'mailed'`);
    await db.execute(sql`DELETE FROM mail_pieces WHERE org_id = ${org.orgId}::uuid AND status = 'failed'`);
    await new Promise((resolve) => setTimeout(resolve, 5_100)); // past the database gauges' cache

    const afterText = (await scrape(ctx.app)).text;
    assert.equal(sample(afterText, 'porchlight_events_accepted_total{outcome="queued"}'), 2);
    assert.equal(sample(afterText, 'porchlight_events_accepted_total{outcome="duplicate"}'), 1);
    const events =
      'porchlight_http_request_duration_seconds_count{route="/api/v1/events",method="POST",status_class="2xx"}';
    assert.equal(sample(afterText, events), 3);
    const me =
      'porchlight_http_request_duration_seconds_count{route="/api/v1/me",method="GET",status_class="4xx"}';
    assert.equal(sample(afterText, me), 1);
    // Each queued event left a campaign job waiting (no worker runs in this test).
    const jobs = afterText.split("\n").filter((line) => /^porchlight_jobs\{.*status="pending"\}/.test(line));
    assert.ok(jobs.reduce((sum, line) => sum + Number(line.split(" ").pop()), 0) >= 2, afterText);
    assert.equal(sample(afterText, 'porchlight_pieces{status="queued"}'), 3, afterText);
    assert.equal(sample(afterText, 'porchlight_pieces{status="delivered"}'), 1);
    assert.doesNotMatch(afterText, /porchlight_pieces\{status="(mailed|failed)"\}/);
    // No id ever becomes a label value.
    assert.doesNotMatch(afterText, new RegExp(org.orgId));
    assert.doesNotMatch(afterText, /metrics-1/);
  });
});

describe(`GET /metrics with the operator listener apart (${databaseLabel})`, () => {
  let publicApp: App;
  let operatorApp: App;
  let limiter: RateLimiter;
  let renderer: Renderer;
  let drop: () => Promise<void>;
  before(async () => {
    const opened = await openTestDatabase();
    drop = opened.drop;
    limiter = await testLimiter(systemClock);
    renderer = createRenderPool({ threads: 1 });
    const deps = {
      config: testConfig({ adminListener: { host: "127.0.0.1", port: 1 } }),
      database: opened.database,
      clock: systemClock,
      logger: pino({ level: "silent" }),
      limiter,
      geocoder: createLocalGeocoder(),
      renderer,
      metrics: createMetrics(),
    };
    [publicApp, operatorApp] = (await buildListenerApps(
      { ...deps, ...appAdapters(deps.config, deps.logger) },
      [["public", "app"], ["admin"]],
    )) as [App, App];
  });
  after(async () => {
    await publicApp.close();
    await operatorApp.close();
    await limiter.close();
    await renderer.close();
    await drop();
  });

  it("is served on the operator listener only; the public one answers 404 even with the token", async () => {
    assert.equal((await scrape(publicApp)).status, 404);
    assert.equal((await scrape(operatorApp, {})).status, 401);
    const served = await scrape(operatorApp);
    assert.equal(served.status, 200);
    // Both listeners count into the one registry they were given.
    assert.equal((await publicApp.inject({ method: "GET", url: "/healthz" })).statusCode, 200);
    const text = (await scrape(operatorApp)).text;
    assert.equal(
      sample(
        text,
        'porchlight_http_request_duration_seconds_count{route="/metrics",method="GET",status_class="4xx"}',
      ),
      1,
    );
    assert.equal(
      sample(
        text,
        'porchlight_http_request_duration_seconds_count{route="/healthz",method="GET",status_class="2xx"}',
      ),
      1,
    );
  });
});

it("keeps each app's counts apart: two apps in one process never share a registry", async () => {
  const [one, two] = [createMetrics(), createMetrics()];
  one.eventsAccepted.inc({ outcome: "queued" });
  assert.equal(sample(await one.registry.metrics(), 'porchlight_events_accepted_total{outcome="queued"}'), 1);
  assert.equal(sample(await two.registry.metrics(), 'porchlight_events_accepted_total{outcome="queued"}'), 0);
});
