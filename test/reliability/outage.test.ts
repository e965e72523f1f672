import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { withDatabaseName } from "../../bench/lib/databases.ts";
import { freePort } from "../../bench/lib/processes.ts";
import { startTimedReceiver } from "../../bench/lib/receiver.ts";
import { DATABASE_GAUGES_CACHE_MS } from "../../src/http/metrics.ts";
import {
  adminHttp,
  captureSubscribedLead,
  createServiceOrg,
  freshDatabase,
  http,
  liveEvent,
  queryDatabase,
  RELIABILITY_ADMIN_TOKEN,
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
    // The scrape still answers: the process's figures (its 503s among them), the database's left out.
    const metrics = () => http(service.baseUrl, "GET", "/metrics", { key: RELIABILITY_ADMIN_TOKEN });
    const during = await metrics();
    assert.equal(during.status, 200, JSON.stringify(during.body));
    const duringText = String(during.body);
    assert.match(duringText, /^porchlight_database_up 0$/m);
    assert.match(
      duringText,
      /^porchlight_http_request_duration_seconds_count\{.*status_class="5xx"\} [1-9]/m,
    );
    assert.doesNotMatch(duringText, /^porchlight_pieces\{/m);
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
    // Every line logging the outage carries it as err.outage, as the worker's do: one alert sees them all.
    const outageLines = service
      .output()
      .split("\n")
      .filter((line) => /readiness check failed|database connection lost/.test(line))
      .map((line) => JSON.parse(line) as { err?: { outage?: boolean; message?: string; stack?: string } });
    assert.ok(outageLines.length > 0, "the failed probes are logged");
    for (const line of outageLines) {
      assert.equal(line.err?.outage, true, JSON.stringify(line));
      assert.ok(line.err?.message, JSON.stringify(line));
      assert.equal(line.err?.stack, undefined, "no stack for an outage");
    }
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
    // Read again once the failed reading's time is up: the database's series are back.
    await sleep(DATABASE_GAUGES_CACHE_MS);
    const back = String((await metrics()).body);
    assert.match(back, /^porchlight_database_up 1$/m);
    assert.match(back, /^porchlight_pieces\{|^porchlight_jobs\{/m);
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

  it("sends a lead once when the database goes away while its delivery is in flight", async () => {
    // An earlier test's process shares this database: its worker (without this receiver's CA)
    // would claim the delivery.
    for (const earlier of services.splice(0)) await earlier.kill("SIGKILL");
    const receiver = await startTimedReceiver({ answerDelayMs: 2_500 });
    const caDir = mkdtempSync(path.join(tmpdir(), "porchlight-reliability-ca-"));
    writeFileSync(path.join(caDir, "ca.pem"), receiver.ca);
    const name = new URL(database.url).pathname.slice(1);
    const server = withDatabaseName(TEST_DATABASE_URL!, "postgres");
    try {
      const service = await startService({
        databaseUrl: database.url,
        env: {
          NODE_EXTRA_CA_CERTS: path.join(caDir, "ca.pem"),
          WEBHOOK_ALLOW_PRIVATE_TARGETS: "127.0.0.1,localhost",
        },
      });
      services.push(service);
      const org = await createServiceOrg(service.baseUrl, "Outage deliveries");
      const leadId = await captureSubscribedLead(
        service.baseUrl,
        org,
        receiver.url("/outage"),
        "12 Outage Rd, Springfield, IL 62701",
      );
      for (let wait = 0; receiver.receipts.length === 0 && wait < 100; wait++) await sleep(100);
      assert.equal(receiver.receipts.length, 1, "the delivery is in flight");

      // The receiver answers 2.5 s after the request arrived: the database is gone by then.
      restoreConnections = () => queryDatabase(server, `ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await queryDatabase(server, `ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await queryDatabase(
        server,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
        [name],
      );
      await sleep(5_000);
      await restoreConnections();

      const recorded = async () =>
        queryDatabase<{ outcome: string; status: string }>(
          database.url,
          `SELECT d.outcome, j.status FROM deliveries d JOIN jobs j ON j.id = d.id
           WHERE d.org_id = $1 AND d.lead_id = $2`,
          [org.orgId, leadId],
        );
      let rows = await recorded();
      for (let wait = 0; (rows.length === 0 || rows[0]!.status !== "done") && wait < 100; wait++) {
        await sleep(200);
        rows = await recorded();
      }
      assert.deepEqual(rows, [{ outcome: "attempted", status: "done" }], service.output().slice(-2_000));
      // A re-run of the job would find the record and send nothing: make it due and let a worker try.
      await queryDatabase(
        database.url,
        "UPDATE jobs SET status = 'running', locked_until = now() - interval '1 second' WHERE id = (SELECT id FROM deliveries WHERE lead_id = $1)",
        [leadId],
      );
      await sleep(2_000);
      assert.equal(receiver.receipts.length, 1, "sent once");
    } finally {
      await restoreConnections?.();
      await receiver.close();
      rmSync(caDir, { recursive: true, force: true });
    }
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

  it("a process started while PostgreSQL is unreachable waits for it and starts once it answers", async () => {
    // The service reaches PostgreSQL through a proxy that hangs up on every connection until the
    // service has tried at least once, then forwards: a database coming up after the service.
    const upstream = new URL(database.url);
    const proxied = new URL(database.url);
    proxied.port = String(await freePort());
    let refused = 0;
    let forwarding = false;
    const sockets = new Set<net.Socket>();
    const proxy = net.createServer((client) => {
      sockets.add(client);
      client.on("error", () => client.destroy());
      if (!forwarding) {
        refused++;
        client.destroy();
        return;
      }
      const server = net.connect(Number(upstream.port || 5432), upstream.hostname);
      sockets.add(server);
      server.on("error", () => client.destroy());
      client.on("close", () => server.destroy());
      client.pipe(server).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(Number(proxied.port), "127.0.0.1", resolve));
    const starting = startService({ databaseUrl: proxied.href, env: { DATABASE_STARTUP_WAIT_MS: "60000" } });
    let service: ServiceProcess | undefined;
    try {
      for (let wait = 0; wait < 600 && refused === 0; wait++) await sleep(50);
      assert.ok(refused > 0, "the service tried to connect");
      forwarding = true;
      service = await starting;
      services.push(service);
      assert.match(service.output(), /database not reachable yet; waiting before starting/);
      const org = await createServiceOrg(service.baseUrl, "Started late");
      assert.equal((await http(service.baseUrl, "GET", "/api/v1/me", { key: org.key })).status, 200);
    } finally {
      forwarding = true;
      await service?.kill("SIGTERM");
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
