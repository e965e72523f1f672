import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
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
 * Free text an API key may send where the schema sets no length: the street aliases of the CRM
 * payloads (`street_address`, `address_line_1`, flat or under `properties`) reach the address
 * parser whole, up to the 1 MB body. Runs of separators ("1" + 20,000 spaces + "x") made the
 * pre-parse patterns ("…, USA" at the end, the trailing ZIP) and the parser's own backtrack
 * quadratically: 20,000 characters held the process 34 s, a 1 MB body would hold it for hours.
 */
const LENGTH = 200_000;
const HOSTILE_STREETS: Record<string, string> = {
  "a run of spaces": `1${" ".repeat(LENGTH)}x`,
  "a run of commas": `1 Main St${", ".repeat(LENGTH / 2)}x`,
  "spaces before a ZIP": `1 Main St${" ".repeat(LENGTH)}62701`,
  "spaces between P and O": `P${" ".repeat(LENGTH)}O`,
  "spaces and dashes": `1 Main${" - ".repeat(LENGTH / 3)}St`,
};

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
    service = await startService({ databaseUrl: database.url });
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

  const endpoints = [
    { path: () => "/api/v1/conversions", body: (street: string) => ({ street_address: street }) },
    {
      path: () => "/api/v1/tracking/lead",
      body: (street: string) => ({ properties: { address_line_1: street }, email: "a@example.com" }),
    },
    {
      path: () => `/api/v1/webhooks/trigger?id=${automationId}`,
      body: (street: string) => ({ street_address: street, deal_id: `deal-${street.length}` }),
    },
  ];

  it("costs each request little CPU, however long the runs of separators", async () => {
    const send = (path: string, body: unknown) => http(service.baseUrl, "POST", path, { key: org.key, body });
    // The first addresses a process parses compile the parser's patterns: paid here.
    for (const endpoint of endpoints)
      await send(endpoint.path(), endpoint.body("1 Warm St, Springfield IL 62701"));
    const baseline = await cpuOf(service, () =>
      send("/api/v1/conversions", { street_address: "2 Warm St, Springfield IL 62701" }),
    );
    for (const [shape, street] of Object.entries(HOSTILE_STREETS)) {
      for (const endpoint of endpoints) {
        const { response, cpuMs } = await cpuOf(service, () => send(endpoint.path(), endpoint.body(street)));
        console.log(
          `hostile text: ${shape} (${street.length} chars) to ${endpoint.path().split("?")[0]}: ` +
            `${response.status}, ${cpuMs} ms of CPU (a plain address: ${baseline.cpuMs} ms)`,
        );
        assert.ok(response.status < 500, `${shape}: ${response.status} ${JSON.stringify(response.body)}`);
        // Generous for a loaded machine: before the fix each of these took minutes of CPU.
        assert.ok(cpuMs < 2000, `${shape} to ${endpoint.path()}: ${cpuMs} ms of CPU`);
      }
    }
  });
});
