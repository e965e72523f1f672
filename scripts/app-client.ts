// Writes the app API's OpenAPI document to web/src/api/app-api.json and generates the web app's
// typed client types (web/src/api/schema.d.ts) from it with openapi-typescript: `npm run app:client`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pino from "pino";
import { buildApp } from "../src/app.ts";
import { systemClock } from "../src/clock.ts";
import { loadConfig } from "../src/config.ts";
import { openDatabase } from "../src/db/database.ts";
import { migrate } from "../src/db/migrate.ts";
import { createLocalGeocoder } from "../src/geo/local.ts";
import { createPlaceholderImagery } from "../src/imagery/placeholder.ts";
import { createMemoryRateLimiter } from "../src/limits/rate-limiter.ts";
import { createMailer } from "../src/mail/mailer.ts";
import { createRenderPool } from "../src/render/renderer.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const DOCUMENT = path.join(ROOT, "web/src/api/app-api.json");
const TYPES = path.join(ROOT, "web/src/api/schema.d.ts");

const database = await openDatabase({});
await migrate(database.db);
const config = {
  ...loadConfig({}),
  publicBaseUrl: "http://127.0.0.1:3000",
  adminToken: "app-client-generator-token",
  dataDir: mkdtempSync(path.join(tmpdir(), "porchlight-app-client-")),
};
const logger = pino({ level: "silent" });
const app = await buildApp({
  config,
  database,
  clock: systemClock,
  logger,
  limiter: createMemoryRateLimiter(systemClock),
  geocoder: createLocalGeocoder(),
  // Never used: the document is read from the routes' schemas.
  renderer: createRenderPool({ threads: 1 }),
  imagery: createPlaceholderImagery(),
  mailer: createMailer({
    smtpUrl: undefined,
    from: config.mailFrom,
    dataDir: config.dataDir,
    logger,
    clock: systemClock,
  }),
});
await app.ready();
const response = await app.inject({ method: "GET", url: "/app/api/v1/openapi.json" });
await app.close();
await database.close();
if (response.statusCode !== 200) throw new Error(`the app API document answered ${response.statusCode}`);
writeFileSync(DOCUMENT, `${JSON.stringify(JSON.parse(response.body), null, 2)}\n`);
console.log(`wrote ${DOCUMENT}`);
const bin = (name: string) => path.join(ROOT, "node_modules/.bin", name);
execFileSync(bin("openapi-typescript"), [DOCUMENT, "-o", TYPES], { stdio: "inherit" });
execFileSync(bin("biome"), ["format", "--write", TYPES, DOCUMENT], { stdio: "inherit" });
