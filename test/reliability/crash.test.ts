import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startTimedReceiver } from "../../bench/lib/receiver.ts";
import {
  adminHttp,
  captureSubscribedLead,
  createServiceOrg,
  freshDatabase,
  http,
  liveEvent,
  queryDatabase,
  type ServiceProcess,
  skipWithoutPostgres,
  startService,
} from "./helpers.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("SIGKILL of the server", { skip: skipWithoutPostgres }, () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const services: ServiceProcess[] = [];
  const start = async (options: Omit<Parameters<typeof startService>[0], "databaseUrl"> = {}) => {
    const service = await startService({ databaseUrl: database.url, ...options });
    services.push(service);
    return service;
  };
  before(async () => {
    database = await freshDatabase();
  });
  after(async () => {
    for (const service of services) await service.kill("SIGKILL");
    await database?.drop();
  });

  it("keeps every 202-acknowledged event after a kill during ingestion under load", async () => {
    const first = await start({ args: ["--role", "api"] });
    const orgs = [];
    for (let index = 0; index < 16; index++) {
      const org = await createServiceOrg(first.baseUrl, `Crash events ${index}`);
      const automation = await adminHttp(first.baseUrl, "POST", `/orgs/${org.orgId}/automations`, {
        name: "Crash",
        trigger: { type: "custom_api", event_type: "job.completed", object_type: "job" },
      });
      assert.equal(automation.status, 201);
      orgs.push(org);
    }
    const acknowledged: { key: string; dedupId: string }[] = [];
    let killed = false;
    const lane = async (org: { key: string }, lane: number) => {
      for (let index = 0; index < 100 && !killed; index++) {
        const dedupId = `crash-${lane}-${index}`;
        try {
          const response = await http(first.baseUrl, "POST", "/api/v1/events", {
            key: org.key,
            body: liveEvent(dedupId),
          });
          if (response.status === 202) {
            assert.equal(response.body.outcomes[0].reason, "queued");
            acknowledged.push({ key: org.key, dedupId });
          }
        } catch {
          return; // the server died under this request: not acknowledged
        }
      }
    };
    const lanes = orgs.map((org, index) => lane(org, index));
    while (acknowledged.length < 150) await sleep(10);
    killed = true;
    await first.kill("SIGKILL");
    await Promise.all(lanes);

    const dedupIds = acknowledged.map((entry) => entry.dedupId);
    const stored = await queryDatabase<{ n: string }>(
      database.url,
      "SELECT count(DISTINCT dedup_key) AS n FROM campaigns WHERE dedup_kind = 'event' AND dedup_key = ANY($1)",
      [dedupIds],
    );
    assert.equal(Number(stored[0]!.n), acknowledged.length);

    const second = await start({ args: ["--role", "api"] });
    for (const entry of acknowledged.slice(0, 40)) {
      const replay = await http(second.baseUrl, "POST", "/api/v1/events", {
        key: entry.key,
        body: liveEvent(entry.dedupId),
      });
      assert.equal(replay.status, 202);
      assert.equal(replay.body.duplicate, true, `${entry.dedupId} is known after the restart`);
    }
  });

  it("delivers a lead captured just before the kill exactly once after the restart", async () => {
    const receiver = await startTimedReceiver();
    const caDir = mkdtempSync(path.join(tmpdir(), "porchlight-reliability-ca-"));
    writeFileSync(path.join(caDir, "ca.pem"), receiver.ca);
    const env = {
      NODE_EXTRA_CA_CERTS: path.join(caDir, "ca.pem"),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "127.0.0.1,localhost",
    };
    try {
      // An API-only process captures and enqueues, but has no worker: the kill lands between the two.
      const api = await start({ args: ["--role", "api"], env });
      const org = await createServiceOrg(api.baseUrl, "Crash leads");
      const leadId = await captureSubscribedLead(
        api.baseUrl,
        org,
        receiver.url("/crash"),
        "12 Crash Rd, Springfield, IL 62701",
      );
      await api.kill("SIGKILL");
      assert.equal(receiver.receipts.length, 0);

      await start({ env });
      const deadline = Date.now() + 20_000;
      while (receiver.receipts.length === 0 && Date.now() < deadline) await sleep(100);
      await sleep(2_500); // a second delivery, if any, would arrive within the worker's next polls
      assert.equal(receiver.receipts.length, 1);
      const lead = JSON.parse(receiver.receipts[0]!.body.toString("utf8"));
      assert.equal(lead.service_lead_id, leadId);
    } finally {
      await receiver.close();
      rmSync(caDir, { recursive: true, force: true });
    }
  });

  it("leaves no partial batch after a kill during an import, and frees the key after the stated 120 s", async () => {
    let delayMs = 200;
    const geocoder: Server = createServer((request, response) => {
      request.resume();
      setTimeout(() => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify([{ lat: "39.78", lon: "-89.65", addresstype: "building" }]));
      }, delayMs);
    });
    await new Promise<void>((resolve) => geocoder.listen(0, "127.0.0.1", resolve));
    const env = {
      GEOCODER: "nominatim",
      GEOCODER_URL: `http://127.0.0.1:${(geocoder.address() as AddressInfo).port}`,
    };
    try {
      const first = await start({ args: ["--role", "api"], env });
      const org = await createServiceOrg(first.baseUrl, "Crash import");
      const body = {
        source: "jobs",
        rows: Array.from({ length: 200 }, (_, index) => ({
          address: `${index + 1} Kill St, Springfield, IL 62701`,
        })),
      };
      const headers = { "idempotency-key": "crash-import" };
      const pending = http(first.baseUrl, "POST", "/api/v1/import/jobs", {
        key: org.key,
        body,
        headers,
      }).catch(() => undefined);
      await sleep(1_500);
      await first.kill("SIGKILL");
      assert.equal(await pending, undefined, "the import was still running when the server died");

      const claims = await queryDatabase<{ status: string }>(
        database.url,
        "SELECT status FROM imports WHERE org_id = $1",
        [org.orgId],
      );
      assert.deepEqual(
        claims.map((claim) => claim.status),
        ["processing"],
      );
      const rows = await queryDatabase<{ n: string }>(
        database.url,
        "SELECT count(*) AS n FROM import_rows WHERE org_id = $1",
        [org.orgId],
      );
      assert.equal(Number(rows[0]!.n), 0, "no partial batch");

      delayMs = 0;
      const second = await start({ args: ["--role", "api"], env });
      const blocked = await http(second.baseUrl, "POST", "/api/v1/import/jobs", {
        key: org.key,
        body,
        headers,
      });
      assert.equal(blocked.status, 409);
      assert.equal(blocked.body.error, "import_in_progress");
      assert.ok(Number(blocked.headers.get("retry-after")) > 0);

      // Time passing is the claim's age: move it past the stated 120 s instead of waiting.
      await queryDatabase(
        database.url,
        "UPDATE imports SET claimed_at = claimed_at - interval '121 seconds' WHERE org_id = $1",
        [org.orgId],
      );
      const retried = await http(second.baseUrl, "POST", "/api/v1/import/jobs", {
        key: org.key,
        body,
        headers,
      });
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      assert.equal(retried.body.staged, 200);
      const replay = await http(second.baseUrl, "POST", "/api/v1/import/jobs", {
        key: org.key,
        body,
        headers,
      });
      assert.equal(replay.status, 200);
      assert.equal(replay.body.import_id, retried.body.import_id);
    } finally {
      await new Promise<void>((resolve) => geocoder.close(() => resolve()));
    }
  });
});
