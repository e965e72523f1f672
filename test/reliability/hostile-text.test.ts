import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { normalizeAddress } from "../../src/domain/address.ts";
import { writtenAddressOf } from "../../src/domain/deliverable-address.ts";
import {
  adminHttp,
  createServiceOrg,
  freshDatabase,
  type HttpResult,
  http,
  type ServiceProcess,
  skipWithoutPostgres,
  startService,
} from "./helpers.ts";

/**
 * The longest free text an API key can send to the address parser: the legacy trigger takes 2000
 * characters in each of `address`, `city`, `state` and `zip` (its schema), and a city, state or
 * ZIP completes an address that names none, so the line parsed is up to ~8000 characters. Runs of
 * separators made the pre-parse patterns ("…, USA" at the end, the trailing ZIP) backtrack
 * quadratically: "1" + 20,000 spaces + "x" (sent under a street alias the schema did not bound)
 * held the process 34 s; 2000-character runs in each field cost about a second a request.
 */
const FIELD = 2000;
const runOf = (unit: string, before = "", after = "") =>
  `${before}${unit.repeat(Math.floor((FIELD - before.length - after.length) / unit.length))}${after}`;
const HOSTILE_FIELDS: Record<string, Record<string, string>> = {
  "runs of spaces": {
    address: runOf(" ", "1", "x"),
    city: runOf(" ", "a", "b"),
    state: runOf(" ", "c", "d"),
  },
  "runs of commas": {
    address: runOf(", ", "1 Main St", "x"),
    city: runOf(", ", "a", "b"),
    zip: runOf(", ", "c", "d"),
  },
  "spaces before a ZIP": { address: runOf(" ", "1 Main St", "62701") },
  "spaces between P and O": { address: runOf(" ", "P", "O"), city: runOf(" ", "P", "O") },
  "spaces and dashes": { address: runOf(" - ", "1 Main", "St"), state: runOf(" - ", "a", "b") },
};

/** Texts of 200,000 characters; runs of separators that each took 30 s to 40 s of CPU to key. */
const LONG = 200_000;
const LONG_TEXTS: Record<string, string> = {
  "a run of spaces": `1${" ".repeat(LONG)}x`,
  "a run of commas": `1 Main St${", ".repeat(LONG / 2)}x`,
  "spaces before a ZIP": `1 Main St${" ".repeat(LONG)}62701`,
  "spaces between P and O": `P${" ".repeat(LONG)}O`,
  "a run of digits": "1".repeat(LONG),
  "full-width digits": "\uff11".repeat(LONG),
};

/** CPU (user + system, ms) of this process for `work`. */
function ownCpuMs(work: () => unknown): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

describe("keying long hostile text", () => {
  it("costs about what keying as long a plain text costs", () => {
    normalizeAddress("1 Warm St, Springfield IL 62701");
    const plain = ownCpuMs(() => normalizeAddress(`1 Main St ${"word ".repeat(LONG / 5)}`));
    for (const [shape, text] of Object.entries(LONG_TEXTS)) {
      const cpuMs = ownCpuMs(() => normalizeAddress(text));
      console.log(
        `keying ${shape} (${text.length} chars): ${cpuMs.toFixed(0)} ms of CPU (plain text: ${plain.toFixed(0)} ms)`,
      );
      // Before the fix each took 30 s to 70 s; linear work is within a few times the plain text's.
      assert.ok(cpuMs < 500 + 10 * plain, `${shape}: ${cpuMs.toFixed(0)} ms of CPU`);
    }
  });
});

describe("reading the written city, state and ZIP of a long hostile line", () => {
  it("costs about what reading as long a plain text costs (a run of spaces after a comma took 1.35 s at 500 characters)", () => {
    writtenAddressOf("1 Warm St, Springfield, IL 62701", {});
    const plain = ownCpuMs(() => writtenAddressOf(`1 Main St, ${"word ".repeat(LONG / 5)}`, {}));
    const texts = { ...LONG_TEXTS, "a run of spaces after a comma": `1 Main St,${" ".repeat(LONG)}x` };
    for (const [shape, text] of Object.entries(texts)) {
      const cpuMs = ownCpuMs(() => writtenAddressOf(text, {}));
      console.log(
        `reading ${shape} (${text.length} chars): ${cpuMs.toFixed(0)} ms of CPU (plain: ${plain.toFixed(0)} ms)`,
      );
      assert.ok(cpuMs < 500 + 10 * plain, `${shape}: ${cpuMs.toFixed(0)} ms of CPU`);
    }
  });
});

const TICK_MS = 10; // /proc's clock ticks are 100 a second

/** utime + stime (ms) of the service process, from /proc/<pid>/stat. */
function serviceCpuMs(service: ServiceProcess): number {
  const fields = readFileSync(`/proc/${service.child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function cpuOf(service: ServiceProcess, request: () => Promise<HttpResult>) {
  const before = serviceCpuMs(service);
  const response = await request();
  return { response, cpuMs: serviceCpuMs(service) - before };
}

const skip = skipWithoutPostgres || (existsSync("/proc/self/stat") ? false : "needs /proc to read CPU");

describe("hostile free text in address fields", { skip }, () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let service: ServiceProcess;
  let org: { orgId: string; key: string };
  let automationId: string;
  before(async () => {
    database = await freshDatabase();
    // The API role alone: the process's CPU is then the requests', not the job worker's.
    service = await startService({ databaseUrl: database.url, args: ["--role", "api"] });
    org = await createServiceOrg(service.baseUrl, "Hostile text");
    const automation = await adminHttp(service.baseUrl, "POST", `/orgs/${org.orgId}/automations`, {
      name: "Hostile",
      trigger: { type: "custom_api", event_type: "job.completed" },
    });
    assert.equal(automation.status, 201, JSON.stringify(automation.body));
    automationId = automation.body.id;
  });
  after(async () => {
    await service?.kill("SIGKILL");
    await database?.drop();
  });

  it("costs a trigger little CPU, whatever runs of separators fill its address fields", async () => {
    const trigger = (body: Record<string, string>) =>
      http(service.baseUrl, "POST", `/api/v1/webhooks/trigger?id=${automationId}`, { key: org.key, body });
    // The first addresses a process parses compile the parser's patterns: paid here.
    await trigger({ address: "1 Warm St, Springfield IL 62701", deal_id: "warm-up" });
    const baseline = await cpuOf(service, () =>
      trigger({ address: "2 Warm St, Springfield IL 62701", deal_id: "baseline" }),
    );
    let total = 0;
    for (const [shape, fields] of Object.entries(HOSTILE_FIELDS)) {
      const { response, cpuMs } = await cpuOf(service, () => trigger({ ...fields, deal_id: shape }));
      total += cpuMs;
      console.log(
        `hostile text: ${shape} to the trigger: ${response.status}, ${cpuMs} ms of CPU ` +
          `(a plain address: ${baseline.cpuMs} ms)`,
      );
      assert.ok(response.status < 500, `${shape}: ${response.status} ${JSON.stringify(response.body)}`);
    }
    // Generous for a loaded machine: before the fix these five took about 5 s of CPU.
    assert.ok(total < 1000, `the five triggers took ${total} ms of CPU`);
  });

  it("refuses an address alias longer than its field allows, 422 naming it (was a 500, and parsed whole)", async () => {
    const random = (length: number) =>
      Array.from({ length }, (_, index) => "abcdefghijklmnopqrstuvwxyz"[(index * 7919) % 26]).join("");
    const cases = [
      {
        path: "/api/v1/conversions",
        body: { street_address: `12 Main St ${random(4000)}` },
        field: "street_address",
        limit: 500,
      },
      {
        path: "/api/v1/tracking/lead",
        body: { properties: { address_line_1: `12 Main St ${random(4000)}` }, email: "a@example.com" },
        field: "properties.address_line_1",
        limit: 500,
      },
      {
        path: "/api/v1/customers/webhook",
        body: { address: "12 Main St", zip_code: random(4000) },
        field: "zip_code",
        limit: 20,
      },
      {
        path: `/api/v1/webhooks/trigger?id=${automationId}`,
        body: { address_line_1: `12 Main St ${random(4000)}`, deal_id: "long-alias" },
        field: "address_line_1",
        limit: 2000,
      },
    ];
    for (const { path, body, field, limit } of cases) {
      const response = await http(service.baseUrl, "POST", path, { key: org.key, body });
      assert.equal(response.status, 422, `${path}: ${response.status} ${JSON.stringify(response.body)}`);
      assert.deepEqual(response.body, {
        error: "invalid_payload",
        detail: `${field}: must NOT have more than ${limit} characters`,
      });
    }
    // Within the limit an alias is read as before.
    const within = await http(service.baseUrl, "POST", "/api/v1/customers/webhook", {
      key: org.key,
      body: { address: "12 Main St", zip_code: "62701" },
    });
    assert.equal(within.status, 200, JSON.stringify(within.body));
  });
});
