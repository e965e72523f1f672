import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pino, { type Logger } from "pino";
import { type App, buildApp } from "../../src/app.ts";
import { type Clock, systemClock } from "../../src/clock.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { type Database, openDatabase, sql } from "../../src/db/database.ts";
import { type Migration, migrate } from "../../src/db/migrate.ts";
import type { Geocoder } from "../../src/geo/geocoder.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { createHomeImagery } from "../../src/imagery/index.ts";
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  defineRedisCounters,
  type RateLimiter,
} from "../../src/limits/rate-limiter.ts";
import { createMailer, type Mailer } from "../../src/mail/mailer.ts";
import { createRenderPool, type Renderer } from "../../src/render/renderer.ts";
import type { HostResolver } from "../../src/webhooks/target-guard.ts";
import { openDatabaseFromTemplate, PGLITE_TEMPLATE_ON } from "./pglite-template.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

/** The PostgreSQL the tests also run against, when set (CI sets it for the second pass). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || process.env.REDIS_URL || undefined;
export const databaseLabel = TEST_DATABASE_URL ? "postgres" : "pglite";

export interface TestContextOptions {
  clock?: Clock;
  config?: Partial<Config>;
  /** Force the in-process limiter even when Redis is configured. */
  memoryLimiter?: boolean;
  /** Wraps the app's limiter (Redis or in-process), to watch the calls it gets. */
  wrapLimiter?: (limiter: RateLimiter) => RateLimiter;
  /** The app's geocoder; default: the offline local adapter. */
  geocoder?: Geocoder;
  /** How webhook target hostnames resolve; default: the system resolver. */
  resolveHost?: HostResolver;
  /** The app's logger; default: silent (or TEST_LOG_LEVEL). */
  logger?: pino.Logger;
}

export interface TestContext {
  app: App;
  database: Database;
  config: Config;
  clock: Clock;
  limiter: RateLimiter;
  /** The render pool the app's proofs and the test's pipeline runs draw with (one thread). */
  renderer: Renderer;
  /** The app's mailer (the outbox under the test's DATA_DIR unless SMTP_URL is set). */
  mailer: Mailer;
  /** The schema this context owns on PostgreSQL (undefined on PGlite). */
  schema: string | undefined;
  close(): Promise<void>;
}

/**
 * Opens a fresh database (PGlite copied from a migrated template, see pglite-template.ts; or a new
 * schema on TEST_DATABASE_URL), migrated to the latest version, or through `migrations` only when
 * given (then PGlite starts in memory from initdb).
 */
export async function openTestDatabase(options: { migrations?: Migration[] } = {}): Promise<{
  database: Database;
  schema: string | undefined;
  drop(): Promise<void>;
}> {
  if (!TEST_DATABASE_URL) {
    if (PGLITE_TEMPLATE_ON) {
      const copy = await openDatabaseFromTemplate(options.migrations);
      return { ...copy, schema: undefined };
    }
    // PGlite behind its thread, as the default start runs it; PGLITE_THREAD=off on the calling thread.
    const database = await openDatabase({ pgliteThread: process.env.PGLITE_THREAD !== "off" });
    await migrate(database.db, options.migrations);
    return { database, schema: undefined, drop: async () => database.close().catch(() => undefined) };
  }
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const admin = await openDatabase({ databaseUrl: TEST_DATABASE_URL, poolSize: 1 });
  await admin.db.execute(sql.raw(`CREATE SCHEMA ${schema}`));
  const database = await openDatabase({ databaseUrl: TEST_DATABASE_URL, searchPath: schema, poolSize: 12 });
  await migrate(database.db, options.migrations);
  return {
    database,
    schema,
    drop: async () => {
      // Outage tests close the database themselves; the schema must still go.
      await database.close().catch(() => undefined);
      await admin.db.execute(sql.raw(`DROP SCHEMA ${schema} CASCADE`));
      await admin.close();
    },
  };
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    adminToken: ADMIN_TOKEN,
    publicBaseUrl: "http://porchlight.test",
    // Tests exercising the per-IP limit lower it themselves; others must never trip it.
    ipRateLimitPerMinute: 1_000_000,
    ...overrides,
  };
}

/**
 * The app's limiter: Redis when the tests run against it, connected before it is handed over
 * (without an offline queue a first command before the connection would fail open, and the
 * limiter then skips Redis for a second).
 */
export async function testLimiter(clock: Clock, forceMemory = false): Promise<RateLimiter> {
  if (!TEST_REDIS_URL || forceMemory) return createMemoryRateLimiter(clock);
  const redis = new Redis(TEST_REDIS_URL, {
    keyPrefix: `test:${randomBytes(6).toString("hex")}:`,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 5000,
    lazyConnect: true,
  });
  redis.on("error", () => {});
  await redis.connect();
  return createRedisRateLimiter(defineRedisCounters(redis), clock, pino({ level: "silent" }), {
    replyTimeoutMs: 1000,
  });
}

/** A fresh app on a fresh database, with an optional fixed clock and config overrides. */
/** The mailer (SMTP_URL's server, else the outbox under DATA_DIR) and home imagery of an app, built as main.ts builds them. */
export function appAdapters(config: Config, logger: Logger, clock: Clock = systemClock) {
  const mailer: Mailer = createMailer({
    smtpUrl: config.smtpUrl,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
    clock,
  });
  return { mailer, imagery: createHomeImagery(config) };
}

export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
  const { database, schema, drop } = await openTestDatabase();
  const clock = options.clock ?? systemClock;
  const config = testConfig(options.config);
  const counters = await testLimiter(clock, options.memoryLimiter);
  const limiter = options.wrapLimiter ? options.wrapLimiter(counters) : counters;
  const logger = options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const geocoder = options.geocoder ?? createLocalGeocoder();
  const renderer = createRenderPool({ threads: 1 });
  const adapters = appAdapters(config, logger, clock);
  const app = await buildApp({
    config,
    database,
    clock,
    logger,
    limiter,
    geocoder,
    renderer,
    ...adapters,
    ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
  });
  await app.ready();
  return {
    app,
    database,
    config,
    clock,
    limiter,
    renderer,
    mailer: adapters.mailer,
    schema,
    close: async () => {
      await app.close();
      await adapters.mailer.close();
      await renderer.close();
      await limiter.close();
      await drop();
    },
  };
}
