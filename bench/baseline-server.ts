// The baselines the service is compared with, on the same machine, core and database:
//   constant: a bare Fastify route answering a constant (the ceiling of Fastify itself);
//   insert:   a bare Fastify route parsing a JSON body and INSERTing one comparable row (into a
//             table shaped like a tenant table: org-first primary key, one secondary index).
//   lookup:   a bare Fastify route doing the least a dry run must (spec rule 11): parse the body,
//             validate it against the event envelope schema, and read one dedup key from the
//             campaigns' unique index. A reference for the dry-run target, not a target itself.
//   validate: the same without the read: parsing and validating the envelope alone.
// Usage: node --import tsx bench/baseline-server.ts <constant|insert|lookup>  (PORT, DATABASE_URL, DATA_DIR
// read through the service's own config module)
import { randomUUID } from "node:crypto";
import Fastify from "fastify";
import { type Config, loadConfig } from "../src/config.ts";
import { type Database, openDatabase, sql } from "../src/db/database.ts";
import { migrate } from "../src/db/migrate.ts";
import { compileWasmWithOptimizingTier } from "../src/db/wasm-compilation.ts";
import { EventEnvelope } from "../src/trigger/envelope.ts";

type Mode = "constant" | "insert" | "lookup" | "validate";
const MODES: Mode[] = ["constant", "insert", "lookup", "validate"];

async function openStore(config: Config): Promise<{ database: Database; orgId: string }> {
  // Synced like the service's own commits (EMBEDDED_SYNC), so baseline (b) pays what the service pays.
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    embeddedSync: config.embeddedSync,
  });
  await migrate(database.db);
  const orgId = randomUUID();
  await database.db.execute(sql`INSERT INTO organizations (id, name) VALUES (${orgId}, 'Baseline')`);
  await database.db.execute(sql`CREATE TABLE IF NOT EXISTS bench_baseline_rows (
    org_id uuid NOT NULL REFERENCES organizations (id),
    id uuid NOT NULL,
    event_type text NOT NULL,
    envelope jsonb NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, id))`);
  await database.db.execute(sql`CREATE INDEX IF NOT EXISTS bench_baseline_rows_type
    ON bench_baseline_rows (org_id, event_type, received_at DESC)`);
  return { database, orgId };
}

async function main() {
  const mode = process.argv[2] as Mode;
  if (!MODES.includes(mode)) throw new Error(`usage: baseline-server.ts <${MODES.join("|")}>`);
  const config = loadConfig();
  // As the service does (src/main.ts), so that PGlite baselines run the same compiled database.
  if (!config.databaseUrl) compileWasmWithOptimizingTier();
  // The service's validation settings: reject, never coerce or drop.
  const app = Fastify({
    logger: false,
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, allErrors: false },
    },
  });
  app.get("/readyz", async () => ({ status: "ready" }));
  let database: Database | undefined;
  if (mode === "constant") {
    app.all("/bench", async () => ({ ok: true }));
  } else if (mode === "validate") {
    app.post<{ Body: EventEnvelope }>(
      "/bench",
      { schema: { body: EventEnvelope } },
      async (_request, reply) => reply.code(202).send({ received: true, dry_run: true }),
    );
  } else if (mode === "lookup") {
    const store = await openStore(config);
    database = store.database;
    app.post<{ Body: EventEnvelope }>(
      "/bench",
      { schema: { body: EventEnvelope } },
      async (request, reply) => {
        await store.database.db.execute(
          sql`SELECT id FROM campaigns WHERE org_id = ${store.orgId} AND automation_id = ${store.orgId}
            AND dedup_kind = 'event' AND dedup_key = ${request.body.dedup_id}`,
        );
        return reply.code(202).send({ received: true, dry_run: true });
      },
    );
  } else {
    const store = await openStore(config);
    database = store.database;
    app.post<{ Body: { event_type?: string } }>("/bench", async (request, reply) => {
      const envelope = request.body;
      await store.database.db.execute(
        sql`INSERT INTO bench_baseline_rows (org_id, id, event_type, envelope)
            VALUES (${store.orgId}, ${randomUUID()}, ${String(envelope.event_type ?? "bench")}, ${JSON.stringify(envelope)}::jsonb)`,
      );
      return reply.code(202).send({ received: true });
    });
  }
  await app.listen({ port: config.port, host: "127.0.0.1" });
  const stop = async () => {
    await app.close();
    await database?.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`baseline failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
