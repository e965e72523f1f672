import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { type App, buildApp } from "../../src/app.ts";
import { fixedClock } from "../../src/clock.ts";
import type { Config } from "../../src/config.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import {
  ADMIN_AUTH_FAILURES_PER_10_MINUTES_IN_ALL,
  ADMIN_AUTH_FAILURES_PER_MINUTE,
} from "../../src/http/admin-guard.ts";
import { createRenderPool } from "../../src/render/renderer.ts";
import { call, createOrg } from "../helpers/api.ts";
import {
  ADMIN_TOKEN,
  appAdapters,
  databaseLabel,
  openTestDatabase,
  type TestContext,
  testConfig,
  testLimiter,
} from "../helpers/harness.ts";

const WRONG = "not-the-operator-token-0123456789";

/** The operator's token guard when clients can write X-Forwarded-For (issue 24 §2). */
describe(`operator-token guard behind proxies (${databaseLabel})`, () => {
  const clock = fixedClock("2026-11-22T12:00:10Z");
  // One database for the apps of every TRUST_PROXY setting; each app counts with its own limiter.
  let opened: Awaited<ReturnType<typeof openTestDatabase>>;
  const closers: (() => Promise<unknown>)[] = [];
  before(async () => {
    opened = await openTestDatabase();
  });
  after(async () => {
    for (const close of closers) await close();
    await opened.drop();
  });

  async function appWith(config: Partial<Config>): Promise<{ ctx: TestContext; path: string }> {
    const limiter = await testLimiter(clock);
    const logger = pino({ level: "silent" });
    const fullConfig = testConfig(config);
    const deps = {
      config: fullConfig,
      database: opened.database,
      clock,
      logger,
      limiter,
      geocoder: createLocalGeocoder(),
      renderer: createRenderPool({ threads: 1 }),
      ...appAdapters(fullConfig, logger),
    };
    const app: App = await buildApp(deps);
    await app.ready();
    closers.push(
      () => app.close(),
      () => limiter.close(),
      () => deps.renderer.close(),
    );
    const ctx = { ...deps, app, schema: opened.schema, close: async () => {} } as TestContext;
    return { ctx, path: `/admin/v1/orgs/${(await createOrg(ctx)).orgId}/campaigns` };
  }

  async function statuses(
    ctx: TestContext,
    path: string,
    count: number,
    request: (index: number) => { ip: string; headers?: Record<string, string> },
  ) {
    const out: number[] = [];
    for (let index = 0; index < count; index++) {
      out.push((await call(ctx, "GET", path, { key: WRONG, ...request(index) })).status);
    }
    return out;
  }
  const refusedAfterLimit = (count: number) =>
    Array.from({ length: count }, (_, index) => (index < ADMIN_AUTH_FAILURES_PER_MINUTE ? 401 : 429));

  describe("TRUST_PROXY=true", () => {
    let ctx: TestContext;
    let path: string;
    before(async () => {
      ({ ctx, path } = await appWith({ trustProxy: true }));
    });

    it("does not let a client buy more guesses by rotating X-Forwarded-For", async () => {
      const rotated = await statuses(ctx, path, 30, (index) => ({
        ip: "198.51.100.7",
        headers: { "x-forwarded-for": `203.0.113.${index}` },
      }));
      assert.deepEqual(rotated, refusedAfterLimit(30));
    });

    it("does not let `X-Forwarded-For: 127.0.0.1` lock out the operator calling from 127.0.0.1", async () => {
      const forged = await statuses(ctx, path, 25, () => ({
        ip: "198.51.100.8",
        headers: { "x-forwarded-for": "127.0.0.1" },
      }));
      assert.deepEqual(forged, refusedAfterLimit(25));
      const operator = await call(ctx, "GET", path, { ip: "127.0.0.1", key: ADMIN_TOKEN });
      assert.equal(operator.status, 200);
    });

    it("keeps a proxy on the same host apart from the operator's direct calls from that host", async () => {
      // Every client behind a local proxy arrives from 127.0.0.1 with the proxy's X-Forwarded-For.
      const throughProxy = await statuses(ctx, path, 25, (index) => ({
        ip: "127.0.0.1",
        headers: { "x-forwarded-for": `203.0.113.${index}, 198.51.100.${index}` },
      }));
      assert.deepEqual(throughProxy, refusedAfterLimit(25));
      const direct = await call(ctx, "GET", path, { ip: "127.0.0.1", key: ADMIN_TOKEN });
      assert.equal(direct.status, 200);
    });
  });

  describe("TRUST_PROXY naming the proxy's address", () => {
    let ctx: TestContext;
    let path: string;
    const proxy = "10.0.0.5";
    before(async () => {
      ({ ctx, path } = await appWith({ trustProxy: proxy }));
    });

    it("counts each client the proxy vouches for on its own, so one guesser does not shut out others", async () => {
      const guesser = await statuses(ctx, path, 25, () => ({
        ip: proxy,
        headers: { "x-forwarded-for": "203.0.113.50" },
      }));
      assert.deepEqual(guesser, refusedAfterLimit(25));
      const operator = await call(ctx, "GET", path, {
        ip: proxy,
        key: ADMIN_TOKEN,
        headers: { "x-forwarded-for": "192.0.2.10" },
      });
      assert.equal(operator.status, 200);
      // What a client writes in front of the proxy's own entry is not believed.
      const forged = await call(ctx, "GET", path, {
        ip: proxy,
        key: ADMIN_TOKEN,
        headers: { "x-forwarded-for": "192.0.2.10, 203.0.113.50" },
      });
      assert.equal(forged.status, 429, "the entry the proxy appended is the guesser's");
    });

    it("counts a client reaching the port directly by its own address, whatever it writes", async () => {
      const direct = await statuses(ctx, path, 25, (index) => ({
        ip: "198.51.100.9",
        headers: { "x-forwarded-for": `192.0.2.${index}` },
      }));
      assert.deepEqual(direct, refusedAfterLimit(25));
    });
  });

  describe("many addresses guessing at once", () => {
    let ctx: TestContext;
    let path: string;
    before(async () => {
      ({ ctx, path } = await appWith({ trustProxy: false }));
    });

    it("gives each address one guess a minute past the global ceiling, and still lets the operator in", async () => {
      const spread = await statuses(ctx, path, ADMIN_AUTH_FAILURES_PER_10_MINUTES_IN_ALL, (index) => ({
        ip: `198.18.${Math.floor(index / 250)}.${(index % 250) + 1}`,
      }));
      assert.ok(spread.every((status) => status === 401));
      const late = await statuses(ctx, path, 2, () => ({ ip: "203.0.113.77" }));
      assert.deepEqual(late, [401, 429], "its first guess is answered, its second refused");
      const failed = await call(ctx, "GET", path, { ip: "203.0.113.77", key: ADMIN_TOKEN });
      assert.equal(failed.status, 429, "a client that failed during the flood waits out its minute");
      const operator = await call(ctx, "GET", path, { ip: "192.0.2.1", key: ADMIN_TOKEN });
      assert.equal(operator.status, 200, "a client that has not failed is never refused");
    });
  });
});
