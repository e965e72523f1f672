import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import pg from "pg";
import { createFreshPostgres } from "../../bench/lib/databases.ts";
import { withApplicationName } from "../../src/db/application-name.ts";
import { copyClusterFiles } from "../../src/db/cluster-snapshot.ts";
import { MIGRATION_LOCK_ID } from "../../src/db/migrate.ts";
import { TEST_DATABASE_URL } from "../helpers/harness.ts";
import { migratedTemplateDir } from "../helpers/pglite-template.ts";
import { freePort, killStarted, type Started, start, waitReady } from "../helpers/server-process.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const ADMIN_TOKEN = "application-name-admin-token-0123";

describe("the name a connection gives PostgreSQL (unit)", () => {
  const url = "postgres://porchlight:secret@db.example:5432/porchlight";
  const cases: [string, string, string][] = [
    ["no query", url, `${url}?fallback_application_name=porchlight-api`],
    [
      "a query of the operator's",
      `${url}?sslmode=verify-full&sslrootcert=/etc/ca.pem`,
      `${url}?sslmode=verify-full&sslrootcert=/etc/ca.pem&fallback_application_name=porchlight-api`,
    ],
    ["an empty query", `${url}?`, `${url}?fallback_application_name=porchlight-api`],
    ["the operator's application_name", `${url}?application_name=ops`, `${url}?application_name=ops`],
    [
      "the operator's fallback_application_name",
      `${url}?fallback_application_name=ops`,
      `${url}?fallback_application_name=ops`,
    ],
  ];
  for (const [name, given, expected] of cases) {
    it(`withApplicationName: ${name}`, () => {
      assert.equal(withApplicationName(given, "porchlight-api"), expected);
    });
  }
});

const onPostgres = TEST_DATABASE_URL ? it : it.skip;

/** The application_name of every client connection to the database behind `url` but the caller's. */
async function applicationNames(observer: pg.Client): Promise<string[]> {
  const { rows } = await observer.query<{ application_name: string }>(
    `SELECT application_name FROM pg_stat_activity
      WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  return rows.map((row) => row.application_name).sort();
}

/** Polls until `wanted` holds of the names (30 s at most: a tool starts tsx and PGlite first); the last names seen. */
async function namesOnceThey(observer: pg.Client, wanted: (names: string[]) => boolean): Promise<string[]> {
  let names: string[] = [];
  for (let attempt = 0; attempt < 300; attempt++) {
    names = await applicationNames(observer);
    if (wanted(names)) return names;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return names;
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: "application-name-test" });
  await client.connect();
  return client;
}

async function stop(started: Started): Promise<void> {
  if (started.child.exitCode === null) started.child.kill("SIGTERM");
  await started.exited;
}

describe("pg_stat_activity tells the processes apart", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "porchlight-application-name-"));
  after(() => {
    killStarted();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** The compiled server, as `npm start` runs it, with `args`, on the database at `databaseUrl`. */
  async function serve(name: string, databaseUrl: string, args: string[]) {
    const port = await freePort();
    const started = start(
      {
        DATABASE_URL: databaseUrl,
        DATA_DIR: path.join(scratch, name),
        ADMIN_TOKEN,
        PORT: String(port),
        DATABASE_STARTUP_WAIT_MS: "0",
      },
      args,
    );
    return { started, port };
  }

  onPostgres(
    "an API process names its connections porchlight-api, a worker porchlight-worker, the default start porchlight",
    async () => {
      const database = await createFreshPostgres(TEST_DATABASE_URL!, "application_name");
      const observer = await connect(database.url);
      const processes: Started[] = [];
      try {
        const api = await serve("api", database.url, ["--role", "api"]);
        const worker = await serve("worker", database.url, ["--role", "worker"]);
        const all = await serve("all", database.url, []);
        processes.push(api.started, worker.started, all.started);
        await waitReady(api.port, api.started);
        await waitReady(all.port, all.started);
        // A worker serves no HTTP: it is there once its LISTEN connection is.
        const names = await namesOnceThey(observer, (seen) => seen.includes("porchlight-worker"));
        assert.ok(names.includes("porchlight-api"), `names: ${names.join(", ")}\n${api.started.output()}`);
        assert.ok(
          names.includes("porchlight-worker"),
          `names: ${names.join(", ")}\n${worker.started.output()}`,
        );
        assert.ok(names.includes("porchlight"), `names: ${names.join(", ")}\n${all.started.output()}`);
        // Every connection of the three (pools, LISTEN) is named; none left blank.
        assert.deepEqual(
          names.filter((name) => !["porchlight", "porchlight-api", "porchlight-worker"].includes(name)),
          [],
        );
      } finally {
        await Promise.all(processes.map(stop));
        await observer.end();
        await database.drop();
      }
    },
  );

  onPostgres("an application_name set in DATABASE_URL is the operator's, and kept", async () => {
    const database = await createFreshPostgres(TEST_DATABASE_URL!, "application_name");
    const observer = await connect(database.url);
    let api: Started | undefined;
    try {
      const served = await serve("named", `${database.url}?application_name=billing-api-eu`, [
        "--role",
        "api",
      ]);
      api = served.started;
      await waitReady(served.port, served.started);
      const names = await applicationNames(observer);
      assert.ok(names.length > 0, "the API holds a connection once ready");
      assert.deepEqual([...new Set(names)], ["billing-api-eu"]);
    } finally {
      if (api) await stop(api);
      await observer.end();
      await database.drop();
    }
  });

  onPostgres("db:copy-to-postgres names its connections porchlight-copy-to-postgres", async () => {
    const target = await createFreshPostgres(TEST_DATABASE_URL!, "application_name");
    const observer = await connect(target.url);
    // Apart from the observer: inside a transaction pg_stat_activity answers the same snapshot.
    const holder = await connect(target.url);
    const dataDir = path.join(scratch, "copy");
    copyClusterFiles(await migratedTemplateDir(), dataDir);
    try {
      // The copy waits on the migrations' lock while this transaction holds it: its connections stay to be seen.
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
      const child = spawn("npm", ["run", "--silent", "db:copy-to-postgres", "--", target.url], {
        cwd: REPO,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), DATA_DIR: dataDir },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      let names: string[];
      try {
        // Its own client and the migrations' connection, which waits on the lock.
        names = await namesOnceThey(
          observer,
          (seen) => seen.filter((name) => name === "porchlight-copy-to-postgres").length >= 2,
        );
      } finally {
        await holder.query("COMMIT");
      }
      assert.equal(await exited, 0, output);
      assert.equal(
        names.filter((name) => name === "porchlight-copy-to-postgres").length,
        2,
        `names: ${names.join(", ")}\n${output}`,
      );
      // The lock's holder is the test's own connection.
      assert.deepEqual([...new Set(names)].sort(), ["application-name-test", "porchlight-copy-to-postgres"]);
    } finally {
      await holder.end();
      await observer.end();
      await target.drop();
    }
  });
});
