import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

const refusal = (variable: string) => (error: unknown) =>
  error instanceof ConfigError && error.variable === variable;

describe("the operator listener settings (ADMIN_PORT, ADMIN_HOST)", () => {
  it("serves everything on the public port when ADMIN_PORT is unset", () => {
    assert.equal(loadConfig({}).adminListener, undefined);
  });

  it("listens on loopback unless ADMIN_HOST says otherwise", () => {
    assert.deepEqual(loadConfig({ ADMIN_PORT: "3001" }).adminListener, { host: "127.0.0.1", port: 3001 });
    assert.deepEqual(loadConfig({ ADMIN_PORT: "9000", ADMIN_HOST: "10.1.2.3" }).adminListener, {
      host: "10.1.2.3",
      port: 9000,
    });
  });

  const bad: [Record<string, string>, string, RegExp][] = [
    [{ ADMIN_PORT: "abc" }, "ADMIN_PORT", /must be an integer/],
    [{ ADMIN_PORT: "0" }, "ADMIN_PORT", /between 1 and 65535/],
    [{ ADMIN_PORT: "70000" }, "ADMIN_PORT", /between 1 and 65535/],
    [{ ADMIN_PORT: "3000" }, "ADMIN_PORT", /must differ from PORT/],
    [{ PORT: "8080", ADMIN_PORT: "8080" }, "ADMIN_PORT", /must differ from PORT/],
    [{ ADMIN_HOST: "127.0.0.1" }, "ADMIN_HOST", /ADMIN_PORT is not/],
    [{ ADMIN_PORT: "3001", ADMIN_HOST: "not a host" }, "ADMIN_HOST", /IP address or a host name/],
  ];
  for (const [env, variable, message] of bad) {
    it(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      assert.throws(() => loadConfig(env), refusal(variable));
      assert.throws(() => loadConfig(env), message);
    });
  }
});

describe("PRINT_PROVIDER=lob needs a public PUBLIC_BASE_URL (its QR codes are mailed)", () => {
  const lob = { PRINT_PROVIDER: "lob", LOB_API_KEY: "test_key" };
  for (const publicBaseUrl of [
    undefined,
    "http://localhost:3000",
    "http://LOCALHOST.",
    "https://app.localhost",
    "http://127.0.0.1:3000",
    "http://127.8.9.10",
    "http://[::1]:3000",
    "http://0.0.0.0:3000",
  ]) {
    it(`refuses to start with PUBLIC_BASE_URL ${publicBaseUrl ?? "unset"}`, () => {
      const env = publicBaseUrl ? { ...lob, PUBLIC_BASE_URL: publicBaseUrl } : lob;
      assert.throws(() => loadConfig(env), refusal("PUBLIC_BASE_URL"));
      assert.throws(
        () => loadConfig(env),
        /^Error: Invalid configuration: PUBLIC_BASE_URL .*PRINT_PROVIDER=lob/,
      );
    });
  }

  it("starts with a public address, and the local printer needs none", () => {
    const config = loadConfig({ ...lob, PUBLIC_BASE_URL: "https://mail.example.com" });
    assert.equal(config.publicBaseUrl, "https://mail.example.com");
    assert.equal(loadConfig({ PUBLIC_BASE_URL: "http://localhost:3000" }).printProvider, "local");
  });
});

describe("SHUTDOWN_DRAIN_MS: how long /readyz says 503 before requests are refused", () => {
  it("is off unless set, and part of SHUTDOWN_TIMEOUT_MS", () => {
    assert.equal(loadConfig({}).shutdownDrainMs, 0);
    assert.equal(loadConfig({ SHUTDOWN_DRAIN_MS: "5000" }).shutdownDrainMs, 5000);
    assert.equal(loadConfig({ SHUTDOWN_DRAIN_MS: "0", SHUTDOWN_TIMEOUT_MS: "1000" }).shutdownDrainMs, 0);
  });

  it("refuses a drain that leaves no time for the requests in flight", () => {
    for (const env of [
      { SHUTDOWN_DRAIN_MS: "25000" },
      { SHUTDOWN_DRAIN_MS: "9000", SHUTDOWN_TIMEOUT_MS: "5000" },
    ]) {
      assert.throws(() => loadConfig(env), refusal("SHUTDOWN_DRAIN_MS"));
      assert.throws(() => loadConfig(env), /must be less than SHUTDOWN_TIMEOUT_MS/);
    }
  });
});
