import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { AppBrowser, createAppTestContext, ownerOfNewOrg, PASSWORD, type SignedInUser } from "./helpers.ts";

describe(`app CSRF protection (${databaseLabel})`, () => {
  let ctx: TestContext;
  let owner: SignedInUser;
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    owner = await ownerOfNewOrg(ctx);
  });
  after(() => ctx.close());

  const patch = (headers: Record<string, string>) =>
    owner.browser.request("PATCH", "/app/api/v1/me", { body: { name: "Renamed" }, headers });

  test("a state-changing request from another origin is refused with csrf_rejected", async () => {
    const response = await patch({ origin: "https://evil.example" });
    assert.equal(response.status, 403);
    assert.equal(response.body.error.code, "csrf_rejected");
  });

  test("a state-changing request with neither Origin nor Sec-Fetch-Site is refused", async () => {
    const response = await patch({ origin: "" });
    assert.equal(response.status, 403);
    assert.equal(response.body.error.code, "csrf_rejected");
  });

  test("Sec-Fetch-Site: same-origin without Origin passes; cross-site does not", async () => {
    assert.equal((await patch({ origin: "", "sec-fetch-site": "same-origin" })).status, 200);
    assert.equal((await patch({ origin: "", "sec-fetch-site": "cross-site" })).status, 403);
  });

  test("Better Auth's endpoints are guarded the same way (sign-in, sign-out)", async () => {
    const signIn = await new AppBrowser(ctx).request("POST", "/app/api/v1/auth/sign-in/email", {
      body: { email: owner.email, password: PASSWORD },
      headers: { origin: "https://evil.example" },
    });
    assert.equal(signIn.status, 403);
    assert.equal(signIn.body.error.code, "csrf_rejected");
    const signOut = await owner.browser.request("POST", "/app/api/v1/auth/sign-out", {
      body: {},
      headers: { origin: "https://evil.example" },
    });
    assert.equal(signOut.status, 403);
    assert.equal((await owner.browser.request("GET", "/app/api/v1/session")).status, 200, "still signed in");
  });

  test("a deeply nested body to the sign-in routes is refused, never a 500", async () => {
    const nested = (depth: number) => `{"email":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    for (const path of ["sign-in/email", "request-password-reset", "sign-out"]) {
      const send = (payload: string) =>
        new AppBrowser(ctx).request("POST", `/app/api/v1/auth/${path}`, {
          payload,
          headers: { "content-type": "application/json" },
        });
      // 10 000 levels overflowed the stack that writes the body back for Better Auth (a 422 then):
      // 20 kB is past what a route anyone may call reads, refused unread.
      assert.equal((await send(nested(10_000))).status, 413, `${path}: 10 000 levels`);
      // As deep as 16 KiB allows: read, and refused as a body, not a 500.
      const within = await send(nested(7_000));
      assert.ok(
        within.status >= 400 && within.status < 500,
        `${path}: 7 000 levels answered ${within.status}`,
      );
    }
  });

  test("the origin the browser used to reach the server is the app's own, even if PUBLIC_BASE_URL names another", async () => {
    const local = { origin: "http://localhost:3000", host: "localhost:3000" };
    const signIn = await new AppBrowser(ctx).request("POST", "/app/api/v1/auth/sign-in/email", {
      body: { email: owner.email, password: PASSWORD },
      headers: local,
    });
    assert.equal(signIn.status, 200);
    assert.equal((await patch(local)).status, 200);
    // That origin with another Host is another site's page.
    assert.equal((await patch({ origin: "http://localhost:3000", host: "porchlight.test" })).status, 403);
  });

  test("reads need no Origin", async () => {
    assert.equal(
      (await owner.browser.request("GET", "/app/api/v1/session", { headers: { origin: "" } })).status,
      200,
    );
  });
});
