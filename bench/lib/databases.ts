import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";

export type DatabaseKind = "pglite" | "postgres";

/** Where one scenario's service keeps its data: env for the child, and how to clean up. */
export interface ScenarioDatabase {
  kind: DatabaseKind;
  env: Record<string, string>;
  /** A direct connection for seeding (PostgreSQL only; PGlite belongs to its one process). */
  url: string | undefined;
  dispose(): Promise<void>;
}

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabaseName(serverUrl, "postgres") });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database on the server behind serverUrl, dropped (connections and all) on dispose. */
export async function createFreshPostgres(
  serverUrl: string,
  prefix: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  return {
    url: withDatabaseName(serverUrl, name),
    drop: () =>
      onServer(serverUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}

export async function scenarioDatabase(
  kind: DatabaseKind,
  serverUrl: string | undefined,
): Promise<ScenarioDatabase> {
  if (kind === "pglite") {
    const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-bench-"));
    return {
      kind,
      env: { DATA_DIR: dataDir },
      url: undefined,
      dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  if (!serverUrl) throw new Error("PostgreSQL benchmarks need DATABASE_URL");
  const fresh = await createFreshPostgres(serverUrl, "bench");
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-bench-"));
  return {
    kind,
    // Redis too when REDIS_URL is set: rate limits are then counted as production counts them.
    env: {
      DATABASE_URL: fresh.url,
      DATA_DIR: dataDir,
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    },
    url: fresh.url,
    dispose: async () => {
      await fresh.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs statements on a scenario's PostgreSQL database. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
