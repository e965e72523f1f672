import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { type App, buildListenerApps } from "../../src/app.ts";
import { systemClock } from "../../src/clock.ts";
import { sql } from "../../src/db/database.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createMetrics } from "../../src/http/metrics.ts";
import { createConfiguredRateLimiter, type RateLimiter } from "../../src/limits/rate-limiter.ts";
import { createLogger } from "../../src/logger.ts";
import { createRenderPool, type Renderer } from "../../src/render/renderer.ts";
import { createAutomation, createOrg } from "../helpers/api.ts";
import {
  ADMIN_TOKEN,
  appAdapters,
  createTestContext,
  databaseLabel,
  openTestDatabase,
  TEST_REDIS_URL,
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

/**
 * porchlight_rate_limit_store_up and the start's check of REDIS_URL: the limiter made as the start
 * makes it (createConfiguredRateLimiter, with its PING), the app built on it, /metrics scraped.
 */
describe(`the rate limits' counter store on /metrics and in the start's log (${databaseLabel})`, () => {
  const opened: { drop(): Promise<void> }[] = [];
  const closing: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const close of closing.reverse()) await close();
    for (const database of opened) await database.drop();
  });

  /** A process's start on REDIS_URL (unset: none): its log lines, and its one app with every surface. */
  async function startWith(redisUrl: string | undefined) {
    const lines: Record<string, unknown>[] = [];
    const raw: string[] = [];
    const logger = createLogger("info", {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line));
      },
    });
    const limiter = await createConfiguredRateLimiter(
      { redisUrl, databaseUrl: undefined },
      systemClock,
      logger,
    );
    closing.push(() => limiter.close());
    const database = await openTestDatabase();
    opened.push(database);
    const renderer = createRenderPool({ threads: 1 });
    closing.push(() => renderer.close());
    const config = testConfig({ redisUrl });
    const deps = {
      config,
      database: database.database,
      clock: systemClock,
      logger,
      limiter,
      geocoder: createLocalGeocoder(),
      renderer,
      metrics: createMetrics(),
    };
    const [app] = (await buildListenerApps({ ...deps, ...appAdapters(config, logger) }, [
      ["public", "app", "admin"],
    ])) as [App];
    closing.push(() => app.close());
    const storeUp = async () => {
      const scraped = await scrape(app);
      assert.equal(scraped.status, 200, scraped.text);
      const line = scraped.text
        .split("\n")
        .find((each) => each.startsWith("porchlight_rate_limit_store_up "));
      return line === undefined ? undefined : Number(line.split(" ")[1]);
    };
    const saying = (pattern: RegExp) => lines.filter((line) => pattern.test(String(line.msg)));
    return { app, lines, raw, storeUp, saying };
  }

  const notEnforced = /rate limits are NOT enforced until it answers/;

  it("REDIS_URL at a port where nothing listens: one error line at start naming host:port, the gauge at 0, /readyz still 200", async () => {
    // Port 1 (tcpmux) has no listener here. The password must never reach the log.
    const started = await startWith("redis://:hunter2-secret@127.0.0.1:1/0");
    const errors = started.saying(notEnforced);
    assert.equal(errors.length, 1, started.raw.join(""));
    assert.equal(errors[0]!.level, 50);
    assert.equal(errors[0]!.redis, "127.0.0.1:1");
    assert.match(String(errors[0]!.msg), /\(REDIS_URL, 127\.0\.0\.1:1\) does not answer/);
    assert.deepEqual(
      Object.keys(errors[0]!.err as object).sort(),
      ["code", "message", "outage", "type"].sort(),
    );
    assert.equal(await started.storeUp(), 0);
    assert.equal(await started.storeUp(), 0);
    // Requests fail open (no 429 from the store) and readiness does not depend on Redis.
    for (let index = 0; index < 5; index++) {
      assert.equal((await started.app.inject({ method: "GET", url: "/api/v1/me" })).statusCode, 401);
    }
    const ready = await started.app.inject({ method: "GET", url: "/readyz" });
    assert.equal(ready.statusCode, 200, ready.body);
    // Said once: scrapes and requests since did not repeat the start's error.
    assert.equal(started.saying(notEnforced).length, 1);
    assert.doesNotMatch(started.raw.join(""), /hunter2/);
  });

  it("without REDIS_URL the series is absent (nothing to be down)", async () => {
    const started = await startWith(undefined);
    assert.equal(await started.storeUp(), undefined);
    assert.equal(started.lines.filter((line) => Number(line.level) >= 50).length, 0);
  });

  const withRedis = { skip: !TEST_REDIS_URL && "needs Redis (REDIS_URL)" };

  it("REDIS_URL at the machine's Redis: no error line, the gauge at 1", withRedis, async () => {
    const started = await startWith(TEST_REDIS_URL!);
    assert.equal(started.saying(notEnforced).length, 0, started.raw.join(""));
    assert.equal(await started.storeUp(), 1);
  });

  it(
    "a Redis that answers only after the start: the error line, then an info line and the gauge at 1",
    withRedis,
    async () => {
      // A proxy to the machine's Redis that hangs up on every connection until told to forward.
      const upstream = new URL(TEST_REDIS_URL!);
      let forwarding = false;
      const sockets = new Set<net.Socket>();
      const proxy = net.createServer((client) => {
        sockets.add(client);
        client.on("error", () => client.destroy());
        if (!forwarding) return void client.destroy();
        const server = net.connect(Number(upstream.port || 6379), upstream.hostname);
        sockets.add(server);
        server.on("error", () => client.destroy());
        client.on("close", () => server.destroy());
        client.pipe(server).pipe(client);
      });
      await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
      closing.push(async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => proxy.close(resolve));
      });
      const proxied = new URL(TEST_REDIS_URL!);
      proxied.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
      const started = await startWith(proxied.href);
      assert.equal(started.saying(notEnforced).length, 1, started.raw.join(""));
      assert.equal(await started.storeUp(), 0);

      forwarding = true;
      // The client reconnects with backoff (up to 2 s); a scrape asks again once the second's pause is over.
      let up = 0;
      for (let attempt = 0; attempt < 60 && up !== 1; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        up = (await started.storeUp()) ?? 0;
      }
      assert.equal(up, 1, started.raw.join(""));
      const answers = started.saying(/rate-limit counter store answers \(it did not at start\)/);
      assert.equal(answers.length, 1, started.raw.join(""));
      assert.equal(answers[0]!.level, 30);
      assert.equal(started.saying(notEnforced).length, 1);
    },
  );
});

it("keeps each app's counts apart: two apps in one process never share a registry", async () => {
  const [one, two] = [createMetrics(), createMetrics()];
  one.eventsAccepted.inc({ outcome: "queued" });
  assert.equal(sample(await one.registry.metrics(), 'porchlight_events_accepted_total{outcome="queued"}'), 1);
  assert.equal(sample(await two.registry.metrics(), 'porchlight_events_accepted_total{outcome="queued"}'), 0);
});
