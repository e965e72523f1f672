import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { withDatabaseName } from "../../bench/lib/databases.ts";
import {
  adminHttp,
  createServiceOrg,
  freshDatabase,
  http,
  liveEvent,
  queryDatabase,
  type ServiceProcess,
  skipWithoutPostgres,
  startService,
  TEST_DATABASE_URL,
} from "./helpers.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("outages of the database and of Redis", { skip: skipWithoutPostgres }, () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  const services: ServiceProcess[] = [];
  before(async () => {
    database = await freshDatabase();
  });
  let restoreConnections: (() => Promise<unknown>) | undefined;
  after(async () => {
    await restoreConnections?.();
    for (const service of services) await service.kill("SIGKILL");
    await database?.drop();
  });

  it("answers 503 (never a 500 storm) while its connections are cut, and recovers without a restart", async () => {
    const service = await startService({ databaseUrl: database.url });
    services.push(service);
    const orgs = [];
    for (let index = 0; index < 8; index++) {
      const org = await createServiceOrg(service.baseUrl, `Outage ${index}`);
      await adminHttp(service.baseUrl, "POST", `/orgs/${org.orgId}/automations`, {
        name: "Outage",
        trigger: { type: "custom_api", event_type: "job.completed" },
      });
      orgs.push(org);
    }
    const name = new URL(database.url).pathname.slice(1);
    const server = withDatabaseName(TEST_DATABASE_URL!, "postgres");
    const statuses: { status: number; error?: string; during: boolean }[] = [];
    let outage = false;
    let stop = false;
    const lane = async (org: { key: string }, lane: number) => {
      for (let index = 0; !stop; index++) {
        const during = outage;
        const response =
          index % 2 === 0
            ? await http(service.baseUrl, "POST", "/api/v1/events", {
                key: org.key,
                body: liveEvent(`o-${lane}-${index}`),
              })
            : await http(service.baseUrl, "GET", "/api/v1/me", { key: org.key });
        statuses.push({ status: response.status, error: response.body?.error, during });
        if (response.status === 503)
          assert.ok(response.headers.get("retry-after"), "a 503 says when to retry");
        await sleep(20);
      }
    };
    const lanes = Promise.all(orgs.map((org, index) => lane(org, index)));
    lanes.catch(() => {
      stop = true;
    });
    await sleep(500);

    outage = true;
    restoreConnections = () => queryDatabase(server, `ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await queryDatabase(server, `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await queryDatabase(server, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [
      name,
    ]);
    await sleep(1_500);
    const ready = await http(service.baseUrl, "GET", "/readyz").catch((error: unknown) => {
      throw new Error(`readyz failed (${String(error)}); server output:\n${service.output()}`);
    });
    assert.equal(ready.status, 503);
    await sleep(1_000);

    await queryDatabase(server, `ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    outage = false;
    const deadline = Date.now() + 15_000;
    let recovered = false;
    while (!recovered && Date.now() < deadline) {
      recovered = (await http(service.baseUrl, "GET", "/readyz")).status === 200;
      if (!recovered) await sleep(100);
    }
    assert.ok(recovered, "readyz is 200 again without a restart");
    const afterOutage = statuses.length;
    await sleep(1_000);
    stop = true;
    await lanes.catch((error: unknown) => {
      throw new Error(`a request failed (${String(error)}); server output:\n${service.output()}`);
    });

    const serverErrors = statuses.filter((entry) => entry.status >= 500 && entry.status !== 503);
    assert.deepEqual(
      serverErrors,
      [],
      `no 500 during or after the outage:\n${service
        .output()
        .split("\n")
        .filter((line) => line.includes('"level":50'))
        .slice(0, 3)
        .join("\n")}`,
    );
    const unavailable = statuses.filter((entry) => entry.status === 503);
    assert.ok(unavailable.length > 0, "the outage was seen as 503");
    for (const entry of unavailable) {
      assert.ok(
        ["auth_unavailable", "service_unavailable"].includes(entry.error ?? ""),
        `503 body: ${entry.error}`,
      );
    }
    const recoveredStatuses = statuses.slice(afterOutage);
    assert.ok(recoveredStatuses.length > 0);
    assert.ok(
      recoveredStatuses.every((entry) => entry.status === 200 || entry.status === 202),
      JSON.stringify(recoveredStatuses.filter((entry) => entry.status >= 300)),
    );
  });

  it("fails open with a warning when Redis is unreachable: never a 429 from the counter store", async () => {
    // Port 1 (tcpmux) has no listener here: a free port picked at random could be handed to the
    // service itself a moment later.
    const service = await startService({
      databaseUrl: database.url,
      env: { REDIS_URL: "redis://127.0.0.1:1", IP_RATE_LIMIT_PER_MINUTE: "3" },
    });
    services.push(service);
    const org = await createServiceOrg(service.baseUrl, "Redis outage");
    const results = [];
    for (let index = 0; index < 20; index++)
      results.push(await http(service.baseUrl, "GET", "/api/v1/me", { key: org.key }));
    assert.deepEqual(
      results.map((result) => result.status),
      results.map(() => 200),
    );
    // The child's log reaches us through a pipe, independently of the HTTP answers: give it time.
    const failOpenLogged = /rate-limit counter store unavailable/;
    for (let wait = 0; wait < 100 && !failOpenLogged.test(service.output()); wait++) await sleep(50);
    assert.match(service.output(), failOpenLogged, "the fail-open is logged");
  });
});
