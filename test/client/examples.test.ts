import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { signatureHeaders } from "../../src/webhooks/signer.ts";
import { createAutomation, createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { listen } from "./client-helpers.ts";

const EXAMPLES = path.resolve(import.meta.dirname, "../../examples");

type Lead = { id: string; first_name?: string };
interface ReceiverModule {
  createLeadReceiver(options: {
    secret: string;
    onLead: (lead: Lead) => Promise<void>;
  }): http.RequestListener;
}
interface ReplayModule {
  replayEvents(options: {
    events: Record<string, unknown>[];
    baseUrl: string;
    apiKey: string;
    dryRun?: boolean;
    fetch?: typeof fetch;
    sleep?: (ms: number) => Promise<void>;
    log?: (line: string) => void;
  }): Promise<{ accepted: number; duplicate: number; rejected: number; failed: number }>;
}

// The examples are plain JavaScript for integrators to copy; they are loaded, not compiled.
const load = <T>(file: string) => import(path.join(EXAMPLES, file)) as Promise<T>;

describe("examples/lead-receiver.mjs", () => {
  const SECRET = "whsec_receiver-example";
  const received: Lead[] = [];
  let server: http.Server;
  let url: string;

  before(async () => {
    const { createLeadReceiver } = await load<ReceiverModule>("lead-receiver.mjs");
    server = http.createServer(
      createLeadReceiver({ secret: SECRET, onLead: async (lead) => void received.push(lead) }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/leads`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const deliver = async (body: Buffer, headers: Record<string, string>) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: new Uint8Array(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const signedNow = (body: Buffer, secret = SECRET) =>
    signatureHeaders(secret, body, Math.floor(Date.now() / 1000));

  it("accepts a signed lead once and answers a repeat of its id as a duplicate", async () => {
    const id = randomUUID();
    const body = Buffer.from(JSON.stringify({ id, service_lead_id: id, first_name: "Zoë" }));
    assert.deepEqual(await deliver(body, signedNow(body)), {
      status: 200,
      body: { received: true, duplicate: false },
    });
    const again = Buffer.from(JSON.stringify({ first_name: "Zoë", id }));
    assert.deepEqual(await deliver(again, signedNow(again)), {
      status: 200,
      body: { received: true, duplicate: true },
    });
    assert.deepEqual(
      received.filter((lead) => lead.id === id),
      [{ id, service_lead_id: id, first_name: "Zoë" }],
    );
  });

  it("refuses a tampered body, a wrong secret, a stale or non-digit timestamp and missing headers", async () => {
    const id = randomUUID();
    const body = Buffer.from(JSON.stringify({ id, first_name: "Ann" }));
    const headers = signedNow(body);
    const stale = signatureHeaders(SECRET, body, Math.floor(Date.now() / 1000) - 301);
    const cases: [Buffer, Record<string, string>][] = [
      [Buffer.from(JSON.stringify({ id, first_name: "Bob" })), headers],
      [body, signedNow(body, "whsec_other")],
      [body, stale],
      [body, { ...headers, "x-service-timestamp": `${headers["x-service-timestamp"]}.0` }],
      [body, { "x-service-signature": headers["x-service-signature"]! }],
      [body, {}],
    ];
    for (const [sent, sentHeaders] of cases) {
      const response = await deliver(sent, sentHeaders);
      assert.equal(response.status, 401, JSON.stringify(sentHeaders));
    }
    assert.equal(
      received.some((lead) => lead.id === id),
      false,
    );
    // The refused deliveries did not mark the id as seen: the genuine one still goes through.
    assert.equal((await deliver(body, signedNow(body))).body.duplicate, false);
  });
});

describe("examples/lead-receiver.mjs run from the command line", () => {
  it("listens on this machine only unless HOST says otherwise, and says where", async () => {
    const free = http.createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const receiver = spawn(process.execPath, [path.join(EXAMPLES, "lead-receiver.mjs")], {
      env: { PATH: process.env.PATH, PORT: String(port), PORCHLIGHT_SIGNING_SECRET: "whsec_cli" },
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        receiver.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
        receiver.once("exit", (code) => reject(new Error(`the receiver exited with ${code}`)));
      });
      assert.equal(line, `lead receiver on http://127.0.0.1:${port}`);
      const unsigned = await fetch(`http://127.0.0.1:${port}/hooks/leads`, { method: "POST", body: "{}" });
      assert.equal(unsigned.status, 401);
    } finally {
      receiver.kill();
    }
  });
});

describe(`examples/replay-events.mjs against the running server (${databaseLabel})`, () => {
  let ctx: TestContext;
  let baseUrl: string;
  before(async () => {
    ctx = await createTestContext();
    baseUrl = await listen(ctx);
  });
  after(async () => ctx.close());

  it("replays with the same dedup_id: a second replay is absorbed, invalid events are skipped", async () => {
    const { replayEvents } = await load<ReplayModule>("replay-events.mjs");
    const org = await createOrg(ctx);
    await createAutomation(ctx, org.orgId, {
      name: "Replay postcard",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    const events = [1, 2].map((n) => ({
      event_type: "job.completed",
      object_type: "job",
      dedup_id: `job-${n}-${randomUUID()}`,
      record: { id: `job-${n}`, properties: { street: `${n} Oak Lane`, city: "Austin", zip: "78701" } },
    }));
    const invalid = { ...events[0]!, dedup_id: "bad", record: { id: "x", properties: { zipcode: "78701" } } };
    const log: string[] = [];
    const options = { baseUrl, apiKey: org.key, log: (line: string) => void log.push(line) };

    const first = await replayEvents({ ...options, events: [...events, invalid] });
    assert.deepEqual(first, { accepted: 2, duplicate: 0, rejected: 1, failed: 0 });
    assert.match(log.join("\n"), /bad: rejected 422 invalid_payload/);

    const second = await replayEvents({ ...options, events });
    assert.deepEqual(second, { accepted: 2, duplicate: 2, rejected: 0, failed: 0 });
  });

  it("waits Retry-After on a 429 and resends the same envelope", async () => {
    const { replayEvents } = await load<ReplayModule>("replay-events.mjs");
    const org = await createOrg(ctx);
    const bodies: string[] = [];
    const waits: number[] = [];
    let calls = 0;
    // The first answer is the service's own 429 shape; the rest go to the real server.
    const limitedOnce: typeof fetch = async (input, init) => {
      bodies.push(String(init?.body));
      if (++calls === 1) {
        return new Response(JSON.stringify({ error: "rate_limited" }), {
          status: 429,
          headers: { "content-type": "application/json", "retry-after": "7" },
        });
      }
      return fetch(input, init);
    };
    const event = {
      event_type: "deal.won",
      object_type: "deal",
      dedup_id: `deal-${randomUUID()}`,
      record: { id: "deal-1" },
    };
    const summary = await replayEvents({
      events: [event],
      baseUrl,
      apiKey: org.key,
      fetch: limitedOnce,
      sleep: async (ms) => void waits.push(ms),
      log: () => {},
    });
    assert.deepEqual(summary, { accepted: 1, duplicate: 0, rejected: 0, failed: 0 });
    assert.equal(waits.length, 1);
    assert.ok(waits[0]! >= 7000 && waits[0]! < 8000, String(waits[0]));
    assert.equal(bodies.length, 2);
    assert.equal(bodies[0], bodies[1]);
  });

  it("takes a base URL given with /api/v1, and stops on a URL with no events endpoint", async () => {
    const { replayEvents } = await load<ReplayModule>("replay-events.mjs");
    const org = await createOrg(ctx);
    const event = {
      event_type: "deal.won",
      object_type: "deal",
      dedup_id: randomUUID(),
      record: { id: "d" },
    };
    const options = { apiKey: org.key, events: [event], log: () => {} };
    const withPrefix = await replayEvents({ ...options, baseUrl: `${baseUrl}/api/v1/` });
    assert.equal(withPrefix.accepted, 1);
    await assert.rejects(replayEvents({ ...options, baseUrl: `${baseUrl}/porchlight` }), /404/);
  });

  it("runs from the command line in a folder whose path has a space; a bad line stops with its number", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "replay example "));
    try {
      copyFileSync(path.join(EXAMPLES, "replay-events.mjs"), path.join(folder, "replay-events.mjs"));
      writeFileSync(path.join(folder, "events.ndjson"), '{"event_type":"job.done"}\n{not json\n');
      const run = spawnSync(process.execPath, [path.join(folder, "replay-events.mjs"), "events.ndjson"], {
        cwd: folder,
        env: { ...process.env, PORCHLIGHT_URL: "http://127.0.0.1:9", PORCHLIGHT_API_KEY: "ak_x" },
        encoding: "utf8",
      });
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, /^events\.ndjson:2: not a JSON envelope/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("stops with exit code 2 on a mistyped flag, a missing file or extra arguments, sending nothing", () => {
    const folder = mkdtempSync(path.join(tmpdir(), "replay-args-"));
    try {
      writeFileSync(path.join(folder, "events.ndjson"), '{"event_type":"job.done"}\n');
      for (const args of [["events.ndjson", "--dryrun"], ["missing.ndjson"], ["events.ndjson", "more"], []]) {
        const run = spawnSync(process.execPath, [path.join(EXAMPLES, "replay-events.mjs"), ...args], {
          cwd: folder,
          // Port 9 refuses connections: a run that sent anything would exit 4, not 2.
          env: { ...process.env, PORCHLIGHT_URL: "http://127.0.0.1:9", PORCHLIGHT_API_KEY: "ak_x" },
          encoding: "utf8",
        });
        assert.equal(run.status, 2, `${args.join(" ")}: ${run.stderr}`);
        assert.match(run.stderr, /usage: /);
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
