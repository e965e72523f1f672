/**
 * The secret that signs the app's sessions, through the real start path (the compiled server as a
 * process): a weak AUTH_SECRET stops the start; without one, a generated secret keeps sessions valid
 * across restarts and a changed operator token.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { createFreshPostgres } from "../../bench/lib/databases.ts";
import { TEST_DATABASE_URL } from "../helpers/harness.ts";
import { freePort, killStarted, type Started, start, waitReady } from "../helpers/server-process.ts";

const PASSWORD = "correct horse battery";

async function stop(started: Started) {
  started.child.kill("SIGTERM");
  await started.exited;
}

/** Starts the server on DATA_DIR and waits until it serves. */
async function serve(dataDir: string, env: Record<string, string>) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = start({ DATA_DIR: dataDir, PORT: String(port), PUBLIC_BASE_URL: base, ...env });
  await waitReady(port, started);
  return { started, base };
}

/** Accepts an invitation (its invite_url) on base: the session cookie of the new user. */
async function acceptInvitation(base: string, inviteUrl: string): Promise<string> {
  const token = decodeURIComponent(new URL(inviteUrl).pathname.split("/").at(-1)!);
  const accepted = await fetch(`${base}/app/api/v1/invitations/${encodeURIComponent(token)}/accept`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ name: "Demo Owner", password: PASSWORD }),
  });
  assert.equal(accepted.status, 200, await accepted.text());
  const cookie = accepted.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  assert.match(cookie, /porchlight\.session_token=/);
  return cookie;
}

/** The owner set-up link the first start on an empty embedded database prints. */
function printedInviteUrl(started: Started): string {
  const inviteUrl = /Set up the app's owner .*\n\s+(\S+)/.exec(started.output())?.[1];
  assert.ok(inviteUrl, `the first start prints the owner's set-up link:\n${started.output()}`);
  return inviteUrl;
}

const sessionStatus = (base: string, cookie: string) =>
  fetch(`${base}/app/api/v1/session`, { headers: { cookie } }).then((response) => response.status);

describe("the app's session secret", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "porchlight-auth-secret-"));
  after(() => {
    killStarted();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("refuses to start with an AUTH_SECRET that is short or a pattern", async () => {
    for (const [secret, reason] of [
      ["too-short-secret", "must be at least 32 characters"],
      ["a".repeat(40), "must be random (at least 10 different characters"],
      ["1234567812345678123456781234567812345678", "must be random (at least 10 different characters"],
      ["12345678901234567890123456789012345", "must be random (at least 10 different characters"],
      ["", "is set but empty: give the secret, or unset the variable to use a generated one"],
    ] as const) {
      const started = start({
        DATA_DIR: path.join(scratch, "refused"),
        PORT: String(await freePort()),
        AUTH_SECRET: secret,
      });
      assert.equal(await started.exited, 1, started.output());
      assert.ok(
        started.output().trim().startsWith(`Invalid configuration: AUTH_SECRET ${reason}`),
        started.output(),
      );
    }
  });

  it("without AUTH_SECRET, a session signed before a restart with another operator token stays valid", async () => {
    const dataDir = path.join(scratch, "generated");
    const first = await serve(dataDir, { ADMIN_TOKEN: "first-operator-token-0123456789" });
    const cookie = await acceptInvitation(first.base, printedInviteUrl(first.started));
    assert.equal(await sessionStatus(first.base, cookie), 200);
    await stop(first.started);

    const second = await serve(dataDir, { ADMIN_TOKEN: "second-operator-token-9876543210" });
    assert.equal(
      await sessionStatus(second.base, cookie),
      200,
      "the session outlives the restart and the new token",
    );
    const forged = cookie.replace(/(session_token=[^.;]+\.)[^;]+/, "$1bm90LXRoZS1zaWduYXR1cmU%3D");
    assert.equal(await sessionStatus(second.base, forged), 401, "a cookie with another signature is refused");
    await stop(second.started);
  });

  it("with AUTH_SECRET, that secret signs the sessions: another one does not accept them", async () => {
    const dataDir = path.join(scratch, "configured");
    const secretA = "Q3b9xK2mV7pL4sN8wR1tY6uE0iO5aZcD";
    const first = await serve(dataDir, { ADMIN_TOKEN: "operator-token-0123456789", AUTH_SECRET: secretA });
    const cookie = await acceptInvitation(first.base, printedInviteUrl(first.started));
    await stop(first.started);

    const rotated = await serve(dataDir, {
      ADMIN_TOKEN: "operator-token-0123456789",
      AUTH_SECRET: "Z8y7X6w5V4u3T2s1R0qPoNmLkJiHgFeD",
    });
    assert.equal(await sessionStatus(rotated.base, cookie), 401, "changing AUTH_SECRET signs everyone out");
    await stop(rotated.started);
  });

  // Shared by instances on one PostgreSQL database only: this test belongs to the suite's
  // PostgreSQL pass (`.ci/run` runs both), so the PGlite pass does not list it at all.
  const onPostgres = TEST_DATABASE_URL ? it : () => {};
  onPostgres(
    "on PostgreSQL without AUTH_SECRET, every instance signs with the one generated secret",
    async () => {
      const database = await createFreshPostgres(TEST_DATABASE_URL!, "auth_secret");
      try {
        // Two instances, each with a DATA_DIR and an operator token of its own, on one database.
        const env = (name: string) => ({
          DATABASE_URL: database.url,
          ADMIN_TOKEN: `${name}-operator-token-0123456789`,
        });
        const [one, two] = await Promise.all([
          serve(path.join(scratch, "pg-one"), env("one")),
          serve(path.join(scratch, "pg-two"), env("two")),
        ]);
        const operator = async (route: string, body: unknown) => {
          const response = await fetch(`${one.base}/admin/v1${route}`, {
            method: "POST",
            headers: {
              authorization: "Bearer one-operator-token-0123456789",
              "content-type": "application/json",
            },
            body: JSON.stringify(body),
          });
          assert.equal(response.status, 201, await response.clone().text());
          return response.json();
        };
        const org = await operator("/orgs", { name: "Two Instances Roofing" });
        const invitation = await operator(`/orgs/${org.org_id}/invitations`, {
          email: "owner@two-instances.test",
          role: "owner",
        });
        const cookie = await acceptInvitation(one.base, invitation.invite_url);
        assert.equal(await sessionStatus(two.base, cookie), 200, "the other instance accepts the session");
        await Promise.all([stop(one.started), stop(two.started)]);
      } finally {
        await database.drop();
      }
    },
  );
});
