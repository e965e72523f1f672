import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { admin } from "../helpers/api.ts";
import type { TestContext } from "../helpers/harness.ts";
import {
  AppBrowser,
  createAppTestContext,
  createOrg,
  inviteAndAccept,
  PASSWORD,
  tokenOfInviteUrl,
} from "./helpers.ts";

describe("app sessions", () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createAppTestContext();
  });
  after(() => ctx.close());

  test("an invited owner sets a password, is signed in, and GET /session names user, org and role", async () => {
    const orgId = await createOrg(ctx, "Summit Roofing");
    const invited = await admin(ctx, "POST", `/orgs/${orgId}/invitations`, {
      email: "Dana@Example.com",
      role: "owner",
    });
    assert.equal(invited.status, 201);
    // The operator's answer carries the link (the operator may pass it on); its token is not the id.
    assert.match(invited.body.invite_url, /^http:\/\/porchlight\.test\/app\/invite\/[A-Za-z0-9_-]{43}$/);
    const token = tokenOfInviteUrl(invited.body.invite_url);
    assert.notEqual(token, invited.body.invitation_id);
    assert.ok(Date.parse(invited.body.expires_at) > Date.now());

    const browser = new AppBrowser(ctx);
    const page = await browser.request("GET", `/app/api/v1/invitations/${token}`);
    assert.equal(page.status, 200);
    assert.deepEqual(
      {
        email: page.body.email,
        organization_name: page.body.organization_name,
        role: page.body.role,
        signed_in_as: page.body.signed_in_as,
      },
      {
        email: "dana@example.com",
        organization_name: "Summit Roofing",
        role: "owner",
        signed_in_as: null,
      },
    );

    const accepted = await browser.request("POST", `/app/api/v1/invitations/${token}/accept`, {
      body: { name: "Dana Reyes", password: PASSWORD },
    });
    assert.equal(accepted.status, 200, accepted.text);
    const cookie = [accepted.headers["set-cookie"]]
      .flat()
      .find((c) => String(c).startsWith("porchlight.session_token="));
    assert.ok(cookie, "a session cookie is set");
    assert.match(String(cookie), /HttpOnly/i);
    assert.match(String(cookie), /SameSite=Lax/i);
    assert.doesNotMatch(String(cookie), /Secure/i, "not Secure on an http base URL");

    const session = await browser.request("GET", "/app/api/v1/session");
    assert.equal(session.status, 200);
    assert.deepEqual(session.body, {
      user: { id: accepted.body.user.id, name: "Dana Reyes", email: "dana@example.com" },
      organization: { id: orgId, name: "Summit Roofing" },
      role: "owner",
    });
    assert.equal(session.headers["cache-control"], "no-store");

    const reused = await browser.request("POST", `/app/api/v1/invitations/${token}/accept`, {
      body: { name: "Dana Reyes", password: PASSWORD },
    });
    assert.equal(reused.status, 404, "an invitation works once");
    assert.equal(reused.body.error.code, "not_found");
  });

  test("one link accepted several times at once makes one account; the others answer 409, not 500", async () => {
    const orgId = await createOrg(ctx, "Parallel Roofing");
    const invited = await admin(ctx, "POST", `/orgs/${orgId}/invitations`, {
      email: "twice@example.com",
      role: "member",
    });
    const token = tokenOfInviteUrl(invited.body.invite_url);
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, index) =>
        new AppBrowser(ctx, `10.44.0.${index + 1}`).request(
          "POST",
          `/app/api/v1/invitations/${token}/accept`,
          {
            body: { name: "Twice Clicked", password: PASSWORD },
          },
        ),
      ),
    );
    assert.equal(
      answers.filter((answer) => answer.status === 200).length,
      1,
      answers.map((a) => a.text).join("\n"),
    );
    for (const answer of answers.filter((one) => one.status !== 200)) {
      assert.ok([404, 409].includes(answer.status), answer.text);
      assert.match(answer.body.error.code, /^(sign_in_to_join|not_found)$/);
    }
    const signedIn = await new AppBrowser(ctx, "10.44.1.1").signIn("twice@example.com");
    assert.equal(signedIn.status, 200, "the one account signs in with the password it was made with");
  });

  test("the invitation names the business as Settings names it, else the organization", async () => {
    const orgId = await createOrg(ctx, "Summit Holdings 4471");
    const first = await admin(ctx, "POST", `/orgs/${orgId}/invitations`, {
      email: "ana@example.com",
      role: "member",
    });
    const browser = new AppBrowser(ctx);
    const token = tokenOfInviteUrl(first.body.invite_url);
    const unnamed = await browser.request("GET", `/app/api/v1/invitations/${token}`);
    assert.equal(unnamed.status, 200);
    assert.equal(unnamed.body.organization_name, "Summit Holdings 4471");
    assert.equal(unnamed.body.business_name, null, "no business name set yet");

    const owner = await inviteAndAccept(ctx, orgId, "owner@summit.example", "owner");
    const saved = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { business_name: "  Summit Roofing  " },
    });
    assert.equal(saved.status, 200, saved.text);
    const renamed = await browser.request("GET", `/app/api/v1/invitations/${token}`);
    assert.equal(renamed.body.business_name, "Summit Roofing");
    assert.equal(renamed.body.organization_name, "Summit Holdings 4471");
  });

  test("without a session GET /session is 401 in the app's error shape", async () => {
    const response = await new AppBrowser(ctx).request("GET", "/app/api/v1/session");
    assert.equal(response.status, 401);
    assert.equal(response.body.error.code, "unauthorized");
    assert.equal(typeof response.body.error.message, "string");
    assert.equal(response.headers["www-authenticate"], undefined);
  });

  test("sign-in with the password works, a wrong password is refused, sign-out ends the session", async () => {
    const orgId = await createOrg(ctx);
    await inviteAndAccept(ctx, orgId, "sam@example.com", "member");
    const browser = new AppBrowser(ctx);
    const wrong = await browser.signIn("sam@example.com", "not the password");
    assert.equal(wrong.status, 401);
    const right = await browser.signIn("sam@example.com");
    assert.equal(right.status, 200, right.text);
    const session = await browser.request("GET", "/app/api/v1/session");
    assert.equal(session.body.role, "member");
    const out = await browser.request("POST", "/app/api/v1/auth/sign-out", { body: {} });
    assert.equal(out.status, 200, out.text);
    assert.equal((await browser.request("GET", "/app/api/v1/session")).status, 401);
  });

  test("revoke-sessions signs out every browser of the user", async () => {
    const orgId = await createOrg(ctx);
    const first = await inviteAndAccept(ctx, orgId, "kim@example.com", "owner");
    const second = new AppBrowser(ctx);
    assert.equal((await second.signIn("kim@example.com")).status, 200);
    const revoked = await first.browser.request("POST", "/app/api/v1/auth/revoke-sessions", { body: {} });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await second.request("GET", "/app/api/v1/session")).status, 401);
    assert.equal((await first.browser.request("GET", "/app/api/v1/session")).status, 401);
  });

  test("public sign-up is closed; unlisted Better Auth endpoints are 404", async () => {
    const browser = new AppBrowser(ctx);
    const signUp = await browser.request("POST", "/app/api/v1/auth/sign-up/email", {
      body: { email: "x@example.com", password: PASSWORD, name: "X" },
    });
    assert.equal(signUp.status, 404);
    assert.equal(signUp.body.error.code, "not_found");
  });

  test("the app API has its own OpenAPI document; the developer API's does not list app routes", async () => {
    const appDoc = await new AppBrowser(ctx).request("GET", "/app/api/v1/openapi.json");
    assert.equal(appDoc.status, 200);
    assert.equal(appDoc.body.info.title, "Porchlight app API");
    assert.ok(appDoc.body.paths["/app/api/v1/session"].get);
    assert.equal(appDoc.body.paths["/app/api/v1/session"].get.operationId, "getSession");
    const devDoc = await new AppBrowser(ctx).request("GET", "/api/v1/openapi.json");
    assert.ok(!Object.keys(devDoc.body.paths).some((p) => p.startsWith("/app/")));
  });

  test("a session's recorded address is the client's, never one named in a header", async () => {
    // The bridge to Better Auth names the client's IP in x-porchlight-client-ip; a client's own value
    // was dropped on the auth proxy only: accepting an invitation recorded whatever it named.
    const orgId = await createOrg(ctx, "Address Roofing");
    const invited = await admin(ctx, "POST", `/orgs/${orgId}/invitations`, {
      email: "where@example.com",
      role: "member",
    });
    const browser = new AppBrowser(ctx, "10.4.4.4");
    const token = encodeURIComponent(tokenOfInviteUrl(invited.body.invite_url));
    const accepted = await browser.request("POST", `/app/api/v1/invitations/${token}/accept`, {
      body: { name: "Wren", password: PASSWORD },
      headers: { "x-porchlight-client-ip": "6.6.6.6" },
    });
    assert.equal(accepted.status, 200, accepted.text);
    const sessions = await browser.request("GET", "/app/api/v1/auth/list-sessions", {
      headers: { "x-porchlight-client-ip": "6.6.6.6" },
    });
    assert.equal(sessions.status, 200, sessions.text);
    assert.deepEqual(
      sessions.body.map((session: { ipAddress: string }) => session.ipAddress),
      ["10.4.4.4"],
    );
  });
});
