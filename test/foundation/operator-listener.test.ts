import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import pino from "pino";
import { type App, buildListenerApps } from "../../src/app.ts";
import { systemClock } from "../../src/clock.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import type { RateLimiter } from "../../src/limits/rate-limiter.ts";
import { createRenderPool, type Renderer } from "../../src/render/renderer.ts";
import {
  ADMIN_TOKEN,
  appAdapters,
  databaseLabel,
  openTestDatabase,
  testConfig,
  testLimiter,
} from "../helpers/harness.ts";
import { freePort, killStarted, start, waitReady } from "../helpers/server-process.ts";

const operator = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };

async function send(app: App, method: "GET" | "POST" | "DELETE", url: string, options: object = {}) {
  const response = await app.inject({ method, url, ...options });
  return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined };
}

describe(`the operator API on its own listener (${databaseLabel})`, () => {
  let publicApp: App;
  let operatorApp: App;
  let limiter: RateLimiter;
  let renderer: Renderer;
  let drop: () => Promise<void>;
  before(async () => {
    const opened = await openTestDatabase();
    drop = opened.drop;
    limiter = await testLimiter(systemClock);
    const deps = {
      config: testConfig({ adminListener: { host: "127.0.0.1", port: 1 } }),
      database: opened.database,
      clock: systemClock,
      logger: pino({ level: "silent" }),
      limiter,
      geocoder: createLocalGeocoder(),
      renderer: createRenderPool({ threads: 1 }),
    };
    renderer = deps.renderer;
    // As main.ts splits them with ADMIN_PORT.
    const listeners = await buildListenerApps({ ...deps, ...appAdapters(deps.config, deps.logger) }, [
      ["public", "app"],
      ["admin"],
    ]);
    [publicApp, operatorApp] = listeners as [App, App];
  });
  after(async () => {
    await publicApp.close();
    await operatorApp.close();
    await limiter.close();
    await renderer.close();
    await drop();
  });

  it("answers the operator API only on the operator listener; the public one answers its generic 404", async () => {
    const created = await send(operatorApp, "POST", "/admin/v1/orgs", {
      headers: operator,
      payload: JSON.stringify({ name: "Split Listener Roofing" }),
    });
    assert.equal(created.status, 201);
    const orgPath = `/admin/v1/orgs/${created.body.org_id}/campaigns`;
    assert.equal((await send(operatorApp, "GET", orgPath, { headers: operator })).status, 200);

    for (const url of [orgPath, "/admin/v1/orgs", "/admin/v1/no-such-route"]) {
      const onPublic = await send(publicApp, "GET", url, { headers: operator });
      assert.equal(onPublic.status, 404, url);
      assert.deepEqual(onPublic.body, { error: "not_found", detail: `no route for GET ${url}` });
    }
    const postOnPublic = await send(publicApp, "POST", "/admin/v1/orgs", {
      headers: operator,
      payload: JSON.stringify({ name: "Nope" }),
    });
    assert.equal(postOnPublic.status, 404, "no 405 hint that the route exists elsewhere");
  });

  it("keeps the developer API, its document and docs on the public listener only; health on both", async () => {
    const issued = await send(operatorApp, "POST", "/admin/v1/orgs", {
      headers: operator,
      payload: JSON.stringify({ name: "Public Side Plumbing" }),
    });
    const key = await send(operatorApp, "POST", `/admin/v1/orgs/${issued.body.org_id}/keys`, {
      headers: operator,
      payload: "{}",
    });
    const bearer = { authorization: `Bearer ${key.body.key}` };
    assert.equal((await send(publicApp, "GET", "/api/v1/me", { headers: bearer })).status, 200);
    assert.equal((await send(operatorApp, "GET", "/api/v1/me", { headers: bearer })).status, 404);
    assert.equal((await operatorApp.inject({ method: "GET", url: "/api/v1/openapi.json" })).statusCode, 404);
    assert.equal((await operatorApp.inject({ method: "GET", url: "/docs" })).statusCode, 404);
    assert.equal((await publicApp.inject({ method: "GET", url: "/api/v1/openapi.json" })).statusCode, 200);
    for (const app of [publicApp, operatorApp]) {
      assert.equal((await app.inject({ method: "GET", url: "/healthz" })).statusCode, 200);
    }
    // One set of services: a key revoked on the operator listener is refused on the public one at once.
    assert.equal(
      (await send(operatorApp, "DELETE", `/admin/v1/keys/${key.body.id}`, { headers: operator })).status,
      204,
    );
    assert.equal((await send(publicApp, "GET", "/api/v1/me", { headers: bearer })).status, 401);
  });
});

describe("a server process with ADMIN_PORT", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-operator-listener-"));
  after(() => {
    killStarted();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("splits the listeners, and warns at start that TRUST_PROXY=true believes any X-Forwarded-For", async () => {
    const [port, adminPort] = [await freePort(), await freePort()];
    const started = start({
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      ADMIN_TOKEN,
      TRUST_PROXY: "true",
    });
    await waitReady(port, started);
    const orgs = (base: number) =>
      fetch(`http://127.0.0.1:${base}/admin/v1/orgs`, {
        method: "POST",
        headers: operator,
        body: JSON.stringify({ name: "Process Split" }),
      });
    const onPublic = await orgs(port);
    assert.equal(onPublic.status, 404);
    assert.equal(((await onPublic.json()) as { error: string }).error, "not_found");
    assert.equal((await orgs(adminPort)).status, 201);
    assert.equal((await fetch(`http://127.0.0.1:${adminPort}/readyz`)).status, 200);
    assert.match(started.output(), /TRUST_PROXY=true takes each client's address from X-Forwarded-For/);
    started.child.kill("SIGTERM");
    assert.equal(await started.exited, 0, started.output());
  });

  it("stops with one line naming ADMIN_HOST and ADMIN_PORT when the operator port is taken", async () => {
    const occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen(0, "127.0.0.1", resolve));
    try {
      const adminPort = (occupied.address() as { port: number }).port;
      const started = start({
        DATA_DIR: dataDir,
        PORT: String(await freePort()),
        ADMIN_PORT: String(adminPort),
        ADMIN_TOKEN,
      });
      assert.equal(await started.exited, 1);
      assert.equal(
        started.output().trim().split("\n").at(-1),
        `Failed to start: cannot listen on ADMIN_HOST 127.0.0.1 ADMIN_PORT ${adminPort} (EADDRINUSE)`,
      );
    } finally {
      occupied.close();
    }
  });
});
