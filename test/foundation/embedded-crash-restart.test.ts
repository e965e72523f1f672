import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { openDatabase, sql } from "../../src/db/database.ts";
import { freePort, killStarted, start, waitReady } from "../helpers/server-process.ts";

const ADMIN_TOKEN = "embedded-restart-admin-token";

describe("a restart of the embedded database's process after a crash", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-crash-restart-"));
  after(() => {
    killStarted();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("takes the jobs its dead predecessor held at once, not when their 180 s locks run out", async () => {
    const port = await freePort();
    const env = { DATA_DIR: dataDir, PORT: String(port), ADMIN_TOKEN };
    const admin = async (method: string, url: string, body?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${port}/admin/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      assert.ok(response.ok, `${method} ${url}: ${response.status} ${await response.clone().text()}`);
      return response.json();
    };
    const geocodeJobs = async () =>
      ((await admin("GET", "/jobs?kind=geocode_piece")) as { jobs: { status: string }[] }).jobs;

    const first = start(env);
    await waitReady(port, first);
    const org = (await admin("POST", "/orgs", { name: "Crash Roofing" })) as { org_id: string };
    await admin("POST", `/orgs/${org.org_id}/mailings`, {
      pieces: [{ address: "412 Maple Ave, Springfield, IL 62704" }],
    });
    for (let wait = 0; wait < 100 && (await geocodeJobs())[0]?.status !== "done"; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    first.child.kill("SIGTERM");
    assert.equal(await first.exited, 0);

    // As a SIGKILL leaves it: the job taken, its lock held for the kind's 180 s by a process now gone.
    const database = await openDatabase({ dataDir });
    try {
      await database.db.execute(
        sql`UPDATE jobs SET status = 'running', attempts = 1, locked_until = now() + interval '180 seconds'
            WHERE kind = 'geocode_piece'`,
      );
    } finally {
      await database.close();
    }

    const second = start(env);
    await waitReady(port, second);
    const started = Date.now();
    for (let wait = 0; wait < 300 && (await geocodeJobs())[0]?.status !== "done"; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal((await geocodeJobs())[0]?.status, "done", second.output());
    assert.ok(Date.now() - started < 30_000, "well before the dead holder's lock ran out");
    assert.match(second.output(), /took over the jobs an ended process held \(a crash\)/);
    second.child.kill("SIGTERM");
    assert.equal(await second.exited, 0);
  });
});
