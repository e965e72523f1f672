// Writes (--write) or checks (--check) the checked-in openapi.json against the document the
// server generates from its route schemas, so the description cannot drift.
import { readFileSync, writeFileSync } from "node:fs";
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

const FILE = path.resolve(import.meta.dirname, "../openapi.json");

async function generate(): Promise<string> {
  const database = await openDatabase({});
  await migrate(database.db);
  const config = {
    ...loadConfig({}),
    publicBaseUrl: "http://127.0.0.1:3000",
    adminToken: "openapi-generator-token",
  };
  const logger = pino({ level: "silent" });
  const app = await buildApp({
    config,
    database,
    clock: systemClock,
    logger,
    limiter: createMemoryRateLimiter(systemClock),
    geocoder: createLocalGeocoder(),
    // Never used: the document is read from the routes' schemas, and no thread starts until a card is drawn.
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
  const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
  await app.close();
  await database.close();
  return document;
}

const mode = process.argv[2];
const generated = await generate();
if (mode === "--write") {
  writeFileSync(FILE, generated);
  console.log(`wrote ${FILE}`);
} else {
  const checkedIn = readFileSync(FILE, "utf8");
  if (checkedIn !== generated) {
    console.error(
      "openapi.json differs from the document the server generates; run `npm run openapi:write` and commit it.",
    );
    process.exit(1);
  }
  console.log("openapi.json matches the generated document");
}
