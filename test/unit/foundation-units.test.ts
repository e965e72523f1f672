import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import net from "node:net";
import { describe, it } from "node:test";
import { type Clock, fixedClock, systemClock } from "../../src/clock.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import {
  bearerToken,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from "../../src/domain/api-key-format.ts";
import { describeValidationError, jsonPointerToPath } from "../../src/http/validation-detail.ts";
import { createMemoryRateLimiter } from "../../src/limits/rate-limiter.ts";
import { TEST_REDIS_URL, testLimiter } from "../helpers/harness.ts";

describe("configuration", () => {
  it("has documented defaults", () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, "127.0.0.1");
    assert.equal(config.publicBaseUrl, "http://127.0.0.1:3000");
    assert.equal(config.ipRateLimitPerMinute, 60);
    assert.equal(config.logLevel, "info");
    assert.equal(config.trustProxy, false);
    assert.equal(config.geocoder, "local");
    assert.deepEqual(config.webhookAllowPrivateTargets, []);
    assert.equal(config.requestTimeoutMs, 30_000);
    assert.equal(config.shutdownTimeoutMs, 25_000);
  });

  const bad: [Record<string, string>, string][] = [
    [{ PORT: "70000" }, "PORT"],
    [{ PORT: "abc" }, "PORT"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ REDIS_URL: "not a url" }, "REDIS_URL"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    [{ IP_RATE_LIMIT_PER_MINUTE: "0" }, "IP_RATE_LIMIT_PER_MINUTE"],
    [{ ADMIN_TOKEN: "short" }, "ADMIN_TOKEN"],
    [{ GEOCODER: "nominatim" }, "GEOCODER_URL"],
    [{ PUBLIC_BASE_URL: "ftp://x" }, "PUBLIC_BASE_URL"],
    [{ SHUTDOWN_TIMEOUT_MS: "500" }, "SHUTDOWN_TIMEOUT_MS"],
    [{ ADMIN_TOKEN: " ".repeat(17) }, "ADMIN_TOKEN"],
    [{ HOST: "999.1.1.1" }, "HOST"],
    [{ HOST: "not a host" }, "HOST"],
    [{ TRUST_PROXY: "garbage" }, "TRUST_PROXY"],
    [{ TRUST_PROXY: "-1" }, "TRUST_PROXY"],
    [{ TRUST_PROXY: "[::1]" }, "TRUST_PROXY"],
    [{ TRUST_PROXY: "10.0.0.0/255.0.255.0" }, "TRUST_PROXY"],
    [{ TRUST_PROXY: "::1/255.0.0.0" }, "TRUST_PROXY"],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: "127.0.0.1,not/a/cidr" }, "WEBHOOK_ALLOW_PRIVATE_TARGETS"],
    [{ WEBHOOK_ALLOW_PRIVATE_TARGETS: "::zz" }, "WEBHOOK_ALLOW_PRIVATE_TARGETS"],
  ];
  for (const [env, variable] of bad) {
    it(`rejects ${JSON.stringify(env)} naming ${variable}`, () => {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && error.variable === variable,
      );
    });
  }

  it("reads TRUST_PROXY as a boolean, a hop count or an address list", () => {
    assert.equal(loadConfig({ TRUST_PROXY: "true" }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: "2" }).trustProxy, 2);
    assert.equal(loadConfig({ TRUST_PROXY: "10.0.0.0/8" }).trustProxy, "10.0.0.0/8");
    assert.equal(
      loadConfig({ TRUST_PROXY: "loopback, 10.0.0.0/255.0.0.0" }).trustProxy,
      "loopback,10.0.0.0/255.0.0.0",
    );
  });

  it("accepts host names, addresses and CIDRs as private webhook targets; brackets an IPv6 HOST in URLs", () => {
    const entries = "127.0.0.1, localhost, [::1], 10.0.0.0/8, receiver.internal.";
    assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: entries }).webhookAllowPrivateTargets.length, 5);
    assert.equal(loadConfig({ HOST: "::1", PORT: "8080" }).publicBaseUrl, "http://[::1]:8080");
    // Compose service names carry underscores.
    assert.equal(
      loadConfig({ HOST: "crm_api", WEBHOOK_ALLOW_PRIVATE_TARGETS: "crm_receiver" }).host,
      "crm_api",
    );
  });
});

describe("API key format", () => {
  it("generates ak_ keys with a checksum that verify without a lookup", () => {
    const key = generateApiKey();
    assert.match(key, /^ak_[0-9A-Za-z]{49}$/);
    assert.ok(isWellFormedApiKey(key));
    assert.notEqual(generateApiKey(), key);
  });

  it("refuses mistyped keys by checksum", () => {
    const key = generateApiKey();
    const typo = `${key.slice(0, 10)}${key[10] === "x" ? "y" : "x"}${key.slice(11)}`;
    assert.equal(isWellFormedApiKey(typo), false);
    assert.equal(isWellFormedApiKey("ak_"), false);
    assert.equal(isWellFormedApiKey(`sk_${key.slice(3)}`), false);
  });

  it("hashes with SHA-256 hex", () => {
    assert.match(hashApiKey("ak_x"), /^[0-9a-f]{64}$/);
  });

  it("reads bearer tokens", () => {
    assert.equal(bearerToken("Bearer abc"), "abc");
    assert.equal(bearerToken("bearer abc"), "abc");
    assert.equal(bearerToken("Basic abc"), undefined);
    assert.equal(bearerToken("Bearer a b"), undefined);
    assert.equal(bearerToken(undefined), undefined);
  });
});

describe("validation details", () => {
  it("turn JSON pointers into field paths", () => {
    assert.equal(jsonPointerToPath("/rows/3/address"), "rows[3].address");
    assert.equal(jsonPointerToPath("/record/properties"), "record.properties");
    assert.equal(jsonPointerToPath(""), "");
  });

  it("name the offending property", () => {
    assert.match(
      describeValidationError([
        { keyword: "propertyNames", instancePath: "/record/properties", params: { propertyName: "zipcode" } },
      ]),
      /^record\.properties\.zipcode: /,
    );
    assert.match(
      describeValidationError([
        { keyword: "required", instancePath: "/record", params: { missingProperty: "id" } },
      ]),
      /^record\.id: is required/,
    );
  });
});

describe("fixed-window rate limiter", () => {
  it("aligns windows to the minute and reports seconds to its end", async () => {
    const clock = fixedClock("2026-11-22T10:00:50Z");
    const limiter = createMemoryRateLimiter(clock);
    assert.deepEqual(await limiter.hit("b", "org", 2, 60), {
      allowed: true,
      count: 1,
      secondsToWindowEnd: 10,
    });
    assert.equal((await limiter.hit("b", "org", 2, 60)).allowed, true);
    assert.equal((await limiter.hit("b", "org", 2, 60)).allowed, false);
    assert.equal((await limiter.hit("other", "org", 2, 60)).allowed, true, "buckets are separate");
    clock.set("2026-11-22T10:01:00Z");
    assert.equal((await limiter.hit("b", "org", 2, 60)).allowed, true);
  });

  it("keeps a day's count while minute windows end around it", async () => {
    const clock = fixedClock("2026-11-22T10:00:50Z");
    const limiter = createMemoryRateLimiter(clock);
    assert.equal((await limiter.hit("import", "org", 2, 86_400)).count, 1);
    assert.equal((await limiter.hit("events", "org", 1, 60)).count, 1);
    clock.set("2026-11-22T10:05:00Z");
    assert.equal((await limiter.hit("events", "org", 1, 60)).count, 1, "the minute window was new");
    assert.equal((await limiter.hit("import", "org", 2, 86_400)).count, 2, "the day window is kept");
    clock.set("2026-11-23T00:00:00Z");
    assert.equal((await limiter.hit("import", "org", 2, 86_400)).count, 1, "a new UTC day starts at zero");
  });
});

/** The in-process limiter, and the Redis one when the tests run against Redis (its script is the one that counts). */
const limiterKinds = [
  { label: "in-process", open: async (clock: Clock) => createMemoryRateLimiter(clock) },
  ...(TEST_REDIS_URL ? [{ label: "Redis", open: (clock: Clock) => testLimiter(clock) }] : []),
];

for (const { label, open } of limiterKinds) {
  describe(`rate limiter, counting several hits in order (${label})`, () => {
    it("counts requests arriving together exactly: each stops at its own refusal, a shared key counts every hit", async () => {
      const clock = fixedClock("2026-11-22T10:00:50Z");
      const limiter = await open(clock);
      const org = { bucket: "events", id: randomUUID(), limit: 3, windowSeconds: 60 };
      const ipOver = { bucket: "ip", id: randomUUID(), limit: 0, windowSeconds: 60 };
      const ipHits = Array.from({ length: 5 }, () => ({
        bucket: "ip",
        id: randomUUID(),
        limit: 9,
        windowSeconds: 60,
      }));
      try {
        const [refusedPerIp, ...requests] = await Promise.all([
          limiter.hitInOrder([ipOver, org]),
          ...ipHits.map((ip) => limiter.hitInOrder([ip, org])),
        ]);
        assert.deepEqual(refusedPerIp, [{ allowed: false, count: 1, secondsToWindowEnd: 10 }]);
        assert.deepEqual(
          requests.map((decisions) => decisions.map((decision) => decision.allowed)),
          [
            [true, true],
            [true, true],
            [true, true],
            [true, false],
            [true, false],
          ],
        );
        assert.deepEqual(
          requests.map((decisions) => decisions[1]!.count).sort(),
          [1, 2, 3, 4, 5],
          "the org's hits were counted one after another, each once",
        );
        assert.equal((await limiter.peek("events", org.id, 60)).count, 5);
      } finally {
        await limiter.close();
      }
    });

    it("counts each hit and stops after the first refused: the hits after it are not counted", async () => {
      const clock = fixedClock("2026-11-22T10:00:50Z");
      const limiter = await open(clock);
      const id = randomUUID();
      const ip = { bucket: "ip", id, limit: 2, windowSeconds: 60 };
      const org = { bucket: "events", id, limit: 10, windowSeconds: 60 };
      try {
        assert.deepEqual(await limiter.hitInOrder([ip, org]), [
          { allowed: true, count: 1, secondsToWindowEnd: 10 },
          { allowed: true, count: 1, secondsToWindowEnd: 10 },
        ]);
        assert.equal((await limiter.hitInOrder([ip, org])).length, 2);
        assert.deepEqual(await limiter.hitInOrder([ip, org]), [
          { allowed: false, count: 3, secondsToWindowEnd: 10 },
        ]);
        assert.equal(
          (await limiter.peek("events", id, 60)).count,
          2,
          "the refused request's org hit was not made",
        );
        assert.deepEqual(await limiter.hitInOrder([]), []);
        clock.set("2026-11-22T10:01:00Z");
        assert.deepEqual(
          (await limiter.hitInOrder([ip, org])).map((decision) => decision.count),
          [1, 1],
          "a new minute starts both counts at zero",
        );
      } finally {
        await limiter.close();
      }
    });

    it("gives a counted hit back in its own window, and never into a window that has ended", async () => {
      const clock = fixedClock("2026-11-22T10:00:50Z");
      const limiter = await open(clock);
      const hit = { bucket: "app-sign-in", id: randomUUID(), limit: 2, windowSeconds: 60 };
      try {
        const first = await limiter.countHit(hit);
        const second = await limiter.countHit(hit);
        assert.deepEqual([first.decision.count, second.decision.count], [1, 2]);
        await second.giveBack();
        assert.equal((await limiter.peek(hit.bucket, hit.id, 60)).count, 1);
        assert.equal(
          (await limiter.countHit(hit)).decision.allowed,
          true,
          "the unit given back is free again",
        );
        const counted = await limiter.countHit(hit);
        assert.equal(counted.decision.allowed, false);
        clock.set("2026-11-22T10:01:05Z");
        const next = await limiter.countHit(hit);
        await counted.giveBack();
        await first.giveBack();
        assert.equal((await limiter.peek(hit.bucket, hit.id, 60)).count, 1, "the new minute keeps its count");
        await next.giveBack();
        await next.giveBack();
        assert.equal((await limiter.peek(hit.bucket, hit.id, 60)).count, 0, "never below zero");
      } finally {
        await limiter.close();
      }
    });
  });
}

describe("Redis rate limiter's script", { skip: !TEST_REDIS_URL && "needs Redis (REDIS_URL)" }, () => {
  it("expires its keys after the window, and loads itself again when Redis lost its scripts (a restart)", async () => {
    const { Redis } = await import("ioredis");
    const { createRedisRateLimiter, defineRedisCounters } = await import("../../src/limits/rate-limiter.ts");
    const pino = (await import("pino")).default;
    const redis = new Redis(TEST_REDIS_URL!, { keyPrefix: `test:${randomUUID()}:` });
    const inspect = new Redis(TEST_REDIS_URL!);
    const limiter = createRedisRateLimiter(
      defineRedisCounters(redis),
      systemClock,
      pino({ level: "silent" }),
    );
    try {
      const id = randomUUID();
      assert.equal((await limiter.hit("b", id, 5, 60)).count, 1);
      const [key] = await inspect.keys(`test:*:rl:b:${id}:*`);
      const ttl = await inspect.ttl(key!);
      assert.ok(ttl > 60 && ttl <= 65, `expires 5 s after a 60 s window at most (${ttl})`);
      await inspect.script("FLUSH");
      assert.equal(
        (await limiter.hit("b", id, 5, 60)).count,
        2,
        "counted exactly after the scripts were flushed",
      );
    } finally {
      await limiter.close();
      inspect.disconnect();
    }
  });
});

describe("Redis rate limiter outage", () => {
  it("fails open (allows, logs a warning) instead of answering a bogus 429", async () => {
    const { Redis } = await import("ioredis");
    const { createRedisRateLimiter, defineRedisCounters } = await import("../../src/limits/rate-limiter.ts");
    const { createLogger } = await import("../../src/logger.ts");
    const warnings: string[] = [];
    const logger = createLogger("warn", { write: (line: string) => warnings.push(line) });
    const redis = new Redis({
      port: 1,
      host: "127.0.0.1",
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    redis.on("error", () => {});
    const limiter = createRedisRateLimiter(
      defineRedisCounters(redis),
      fixedClock("2026-11-22T10:00:00Z"),
      logger,
      { where: "127.0.0.1:1" },
    );
    for (let i = 0; i < 5; i++) assert.equal((await limiter.hit("b", "org", 1, 60)).allowed, true);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /fail open/);
    // An outage line like the others: where, and the short cause; no stack.
    const line = JSON.parse(warnings[0]!);
    assert.equal(line.redis, "127.0.0.1:1");
    assert.equal(line.err.outage, true);
    assert.equal(typeof line.err.message, "string");
    assert.equal(line.err.stack, undefined);
    await limiter.close();
  });

  it("after a failure, fails open at once for a second instead of waiting on Redis per request, then counts again", async () => {
    const { createRedisRateLimiter } = await import("../../src/limits/rate-limiter.ts");
    const pino = (await import("pino")).default;
    const lines: string[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
    let calls = 0;
    let healthy = false;
    let count = 0;
    const fakeRedis = {
      countGroups: async () => {
        calls++;
        if (!healthy) throw new Error("Command timed out");
        count++;
        return [count];
      },
      get: async () => String(count),
      giveBack: async () => 0,
      disconnect: () => undefined,
    };
    const clock = fixedClock("2026-11-22T10:00:00Z");
    const limiter = createRedisRateLimiter(fakeRedis, clock, logger);
    for (let i = 0; i < 20; i++) assert.equal((await limiter.hit("b", "org", 1, 60)).allowed, true);
    assert.equal(calls, 1, "one call waited on Redis; the others failed open at once");
    healthy = true;
    clock.advance(1_001);
    assert.equal((await limiter.hit("b", "org", 1, 60)).allowed, true);
    assert.equal((await limiter.hit("b", "org", 1, 60)).allowed, false, "exact counting again");
    assert.equal(calls, 3);
    assert.ok(lines.some((line) => line.includes("counter store answers again")));
  });

  it("past the pause, one request probes a frozen Redis while the others fail open at once", async () => {
    const { createRedisRateLimiter } = await import("../../src/limits/rate-limiter.ts");
    const pino = (await import("pino")).default;
    let calls = 0;
    // Frozen: a call never answers; each waits out the reply timeout.
    const fakeRedis = {
      countGroups: () => {
        calls++;
        return new Promise<number[]>(() => undefined);
      },
      get: () => new Promise<string | null>(() => undefined),
      giveBack: async () => 0,
      disconnect: () => undefined,
    };
    const clock = fixedClock("2026-11-22T10:00:00Z");
    const limiter = createRedisRateLimiter(fakeRedis, clock, pino({ level: "silent" }), {
      replyTimeoutMs: 100,
    });
    assert.equal((await limiter.hit("b", "org", 1, 60)).allowed, true);
    clock.advance(1_001);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const at = Date.now();
        const answer = await limiter.hit("b", "org", 1, 60);
        return { allowed: answer.allowed, waitedMs: Date.now() - at };
      }),
    );
    assert.equal(calls, 2, "one call when it failed, one probe after the pause");
    assert.ok(answers.every((answer) => answer.allowed));
    assert.equal(answers.filter((answer) => answer.waitedMs >= 90).length, 1, "only the probe waited");
    assert.ok(Date.now() - started < 1_000);
  });

  it("does not take a reply that waited behind a busy event loop for an outage", async () => {
    const { createRedisRateLimiter } = await import("../../src/limits/rate-limiter.ts");
    const pino = (await import("pino")).default;
    // As with a real Redis, the reply is written by the peer into a loopback socket and waits
    // there, unread, while this process's event loop is busy.
    const peer = net.createServer();
    await new Promise<void>((resolve) => peer.listen(0, "127.0.0.1", resolve));
    const accepted = once(peer, "connection");
    const client = net.connect((peer.address() as net.AddressInfo).port, "127.0.0.1");
    await once(client, "connect");
    const [peerSocket] = (await accepted) as [net.Socket];
    let issued!: () => void;
    const commandIssued = new Promise<void>((resolve) => {
      issued = resolve;
    });
    const countGroups = () =>
      new Promise<number[]>((resolve) => {
        client.once("data", () => resolve([1]));
        peerSocket.write("x");
        issued();
      });
    const fakeRedis = {
      countGroups,
      get: async () => null,
      giveBack: async () => 0,
      disconnect: () => undefined,
    };
    const limiter = createRedisRateLimiter(
      fakeRedis,
      fixedClock("2026-11-22T10:00:00Z"),
      pino({ level: "silent" }),
      { replyTimeoutMs: 50 },
    );
    try {
      const decision = limiter.hit("b", "org", 0, 60);
      // The command goes out with its turn's batch; then this process is busy past the timeout.
      await commandIssued;
      const busyUntil = Date.now() + 200;
      while (Date.now() < busyUntil) {}
      assert.equal((await decision).allowed, false, "counted (count 1 > limit 0), not failed open");
    } finally {
      client.destroy();
      peerSocket.destroy();
      peer.close();
    }
  });
});

describe("logged errors of failed queries", () => {
  it("keep the statement and code but never the bound values (params, message, stack, detail)", async () => {
    const { DrizzleQueryError } = await import("drizzle-orm");
    const { createLogger } = await import("../../src/logger.ts");
    const lines: string[] = [];
    const logger = createLogger("error", { write: (line: string) => lines.push(line) });
    const cause = Object.assign(new Error('duplicate key value violates unique constraint "leads_email"'), {
      code: "23505",
      detail: "Key (email)=(homer@example.com) already exists.",
      constraint: "leads_email",
    });
    const error = new DrizzleQueryError(
      "insert into leads (name, email) values ($1, $2)",
      ["Homer\nSimpson", "homer@example.com"],
      cause,
    );
    logger.error({ err: error }, "request failed");
    const logged = lines.join("");
    assert.doesNotMatch(logged, /homer@example\.com|Homer|Simpson/);
    const entry = JSON.parse(lines[0]!);
    assert.equal(entry.err.message, "Failed query: insert into leads (name, email) values ($1, $2)");
    assert.match(entry.err.stack, /^Error: Failed query: insert into leads .*\$2\)\n {4}at /);
    assert.equal(entry.err.cause.code, "23505");
    assert.equal(entry.err.cause.constraint, "leads_email");
  });

  it("keep the detail of the service's own errors (our text, not a query's values)", async () => {
    const { createLogger } = await import("../../src/logger.ts");
    const { AppError } = await import("../../src/errors.ts");
    const lines: string[] = [];
    const logger = createLogger("error", { write: (line: string) => lines.push(line) });
    logger.error(
      { err: new AppError(502, "geocoding_failed", "the geocoder answered with an error") },
      "failed",
    );
    const entry = JSON.parse(lines[0]!);
    assert.equal(entry.err.code, "geocoding_failed");
    assert.equal(entry.err.detail, "the geocoder answered with an error");
  });

  it("log an outage as its short cause: no stack, statement or driver object", async () => {
    const { createLogger } = await import("../../src/logger.ts");
    const lines: string[] = [];
    const logger = createLogger("warn", { write: (line: string) => lines.push(line) });
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
      code: "ECONNREFUSED",
      address: "127.0.0.1",
      client: { processID: 7, secretKey: 12345 },
    });
    const failedQuery = new Error("Failed query: UPDATE jobs SET status = 'running' …", { cause: refused });
    logger.warn({ err: failedQuery }, "job worker could not claim jobs; retrying");
    const entry = JSON.parse(lines[0]!);
    assert.deepEqual(entry.err, {
      type: "Error",
      outage: true,
      message: "connect ECONNREFUSED 127.0.0.1:5432",
      code: "ECONNREFUSED",
    });
    assert.ok(lines[0]!.length < 400, lines[0]);
  });
});

describe("delivery log URLs", () => {
  it("keep the origin of a receiver's URL only: no path segment, query or credentials", async () => {
    const { loggableUrl } = await import("../../src/webhooks/deliver-lead-job.ts");
    assert.equal(loggableUrl("https://hooks.zapier.com/hooks/catch/1/abcXYZ/"), "https://hooks.zapier.com");
    assert.equal(loggableUrl("https://crm.example.com/leads"), "https://crm.example.com");
    assert.equal(loggableUrl("https://crm.example.com:8443/"), "https://crm.example.com:8443");
    assert.equal(loggableUrl("https://x.example.com/ZkxQpLmWv/hook"), "https://x.example.com");
    assert.equal(loggableUrl("https://u:p@n8n.example.com/webhook?token=SECRET"), "https://n8n.example.com");
    assert.equal(loggableUrl("not a url"), "[unparsable url]");
  });
});

describe("CSV export cells", () => {
  it("never start a formula, at the start of a cell or after a separator or line break", async () => {
    const { csvCell: csvField } = await import("../../src/domain/csv-cell.ts");
    assert.equal(csvField("x,=1+1"), `"x,'=1+1"`);
    assert.equal(csvField("x\n-1"), `"x\n'-1"`);
    assert.equal(csvField("x\r\n+1"), `"x\r\n'+1"`);
    assert.equal(csvField("=1+1"), `"'=1+1"`);
    assert.equal(csvField("@SUM(A1)"), `"'@SUM(A1)"`);
    assert.equal(csvField("id;+1+1"), `"id;'+1+1"`);
    assert.equal(csvField("Bob;=1+1;@SUM(1+1)"), `"Bob;'=1+1;'@SUM(1+1)"`);
    assert.equal(csvField("-5"), `"'-5"`);
    // A spreadsheet split on tabs starts a cell after one.
    assert.equal(csvField("x\t=1+1"), `"x\t'=1+1"`);
    assert.equal(csvField(-89.6), "-89.6", "numbers are data, not text");
    assert.equal(csvField('12 "Oak" Ln, Austin'), '"12 ""Oak"" Ln, Austin"');
    assert.equal(csvField("Ada Lovelace"), "Ada Lovelace");
  });
});

describe("database unavailability", () => {
  it("counts a database that is gone, refusing us, full or read-only as unavailable, not a bad query", async () => {
    const { isConnectionError } = await import("../../src/db/database.ts");
    const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });
    for (const code of ["ECONNREFUSED", "57P01", "08006", "3D000", "28P01", "53100", "53300", "25006"]) {
      assert.equal(isConnectionError(pgError(code)), true, code);
      assert.equal(
        isConnectionError(new Error("Failed query", { cause: pgError(code) })),
        true,
        `${code} as cause`,
      );
    }
    for (const code of ["23505", "22P02", "42P01", "40001"]) {
      assert.equal(isConnectionError(pgError(code)), false, code);
    }
    const { isDatabaseMisconfigured } = await import("../../src/db/database.ts");
    assert.equal(isDatabaseMisconfigured(new Error("Failed query", { cause: pgError("28P01") })), true);
    assert.equal(isDatabaseMisconfigured(pgError("3D000")), true);
    assert.equal(isDatabaseMisconfigured(pgError("57P01")), false, "a restart heals by itself");
  });
});

describe("a connection dropped in the middle of a request", () => {
  it("counts pg's 'not queryable' client (a rollback after the drop) as the database being unavailable", async () => {
    const { isConnectionError } = await import("../../src/db/database.ts");
    const dropped = new Error("Client has encountered a connection error and is not queryable");
    assert.equal(isConnectionError(new Error("Failed query: rollback", { cause: dropped })), true);
  });

  it("Better Auth's errors: logged without a query's params or other arguments, and noted per request", async () => {
    const { DrizzleQueryError } = await import("drizzle-orm");
    const { createLogger } = await import("../../src/logger.ts");
    const { betterAuthLogger } = await import("../../src/app-api/better-auth.ts");
    const { runAuthRequest } = await import("../../src/app-api/auth-outage.ts");
    const lines: string[] = [];
    const processLogger = createLogger("info", { write: (line: string) => lines.push(line) });
    const log = betterAuthLogger(processLogger).log;
    const requestLog = processLogger.child({ reqId: "attempt-1" });
    const terminated = Object.assign(new Error("terminating connection due to administrator command"), {
      code: "57P01",
    });
    const failedInsert = new DrizzleQueryError(
      'insert into "user_sessions" ("token", "ip_address") values ($1, $2)',
      ["ijlzkB0TKBNxIFlR9sikoS6b6Ie9h00d", "203.0.113.9"],
      terminated,
    );
    const [dropped, refused, outside] = await Promise.all([
      runAuthRequest(
        async () => log("error", "Error", failedInsert, { token: "ijlzkB0TKBNxIFlR9sikoS6b6Ie9h00d" }),
        requestLog,
      ),
      runAuthRequest(async () => log("error", "Error", new Error("invalid password hash")), requestLog),
      runAuthRequest(async () => undefined, requestLog),
    ]);
    assert.deepEqual(
      [dropped.databaseUnavailable, refused.databaseUnavailable, outside.databaseUnavailable],
      [true, false, false],
      "only the request whose error was the database's",
    );
    const logged = lines.join("");
    assert.doesNotMatch(logged, /ijlzkB0T|203\.0\.113\.9/);
    assert.equal(JSON.parse(lines[0]!).err.code, "57P01", "an outage is logged as one, briefly");
    assert.equal(JSON.parse(lines[0]!).reqId, "attempt-1", "a request's line carries its id");
    log("success", "done");
    assert.equal(JSON.parse(lines.at(-1)!).msg, "auth: done");
    assert.equal(JSON.parse(lines.at(-1)!).reqId, undefined, "outside a request: the process's logger");
  });
});

describe("retryWhileUnavailable", () => {
  const unavailable = () => Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });

  it("waits out an outage shorter than its budget and returns the write's answer", async () => {
    const { retryWhileUnavailable } = await import("../../src/db/retry-while-unavailable.ts");
    let calls = 0;
    const retries: number[] = [];
    const answer = await retryWhileUnavailable(
      async () => {
        calls++;
        if (calls < 4) throw unavailable();
        return "stored";
      },
      { budgetMs: 1_000, firstDelayMs: 5, onRetry: (_error, attempt) => retries.push(attempt) },
    );
    assert.equal(answer, "stored");
    assert.equal(calls, 4);
    assert.deepEqual(retries, [1, 2, 3]);
  });

  it("throws at once for an error that is not an outage, and after the budget for a long outage", async () => {
    const { retryWhileUnavailable } = await import("../../src/db/retry-while-unavailable.ts");
    let calls = 0;
    const duplicate = Object.assign(new Error("duplicate key"), { code: "23505" });
    await assert.rejects(
      retryWhileUnavailable(
        async () => {
          calls++;
          throw duplicate;
        },
        { budgetMs: 1_000, firstDelayMs: 5 },
      ),
      duplicate,
    );
    assert.equal(calls, 1);
    const started = Date.now();
    await assert.rejects(
      retryWhileUnavailable(
        async () => {
          throw unavailable();
        },
        { budgetMs: 100, firstDelayMs: 10, maxDelayMs: 20 },
      ),
      /ECONNREFUSED/,
    );
    assert.ok(Date.now() - started < 1_000, "gave up within about its budget");
  });

  it("tries once more at the end of its budget, where the next doubled wait would have passed it", async () => {
    const { retryWhileUnavailable } = await import("../../src/db/retry-while-unavailable.ts");
    const started = Date.now();
    const tries: number[] = [];
    // Back after 250 ms of a 300 ms budget: tries at about 0 and 200 ms, the next wait (400 ms) is cut to the deadline.
    const answer = await retryWhileUnavailable(
      async () => {
        tries.push(Date.now() - started);
        if (Date.now() - started < 250) throw unavailable();
        return "stored";
      },
      { budgetMs: 300, firstDelayMs: 200 },
    );
    assert.equal(answer, "stored");
    assert.equal(tries.length, 3, `tries at ${tries.join(", ")} ms`);
    assert.ok((tries[2] ?? 0) >= 250, "the last try is at the deadline");
  });
});

describe("retryWhileUnavailable and abort", () => {
  it("stops retrying once its signal is aborted", async () => {
    const { retryWhileUnavailable } = await import("../../src/db/retry-while-unavailable.ts");
    const controller = new AbortController();
    let calls = 0;
    await assert.rejects(
      retryWhileUnavailable(
        async () => {
          calls++;
          if (calls === 2) controller.abort();
          throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
        },
        { budgetMs: 10_000, firstDelayMs: 5, signal: controller.signal },
      ),
      /ECONNREFUSED/,
    );
    assert.equal(calls, 2);
  });
});
