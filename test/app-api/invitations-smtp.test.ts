import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { queryOne, sql } from "../../src/db/database.ts";
import type { TestContext } from "../helpers/harness.ts";
import { startSmtpServer } from "../helpers/smtp-server.ts";
import {
  AppBrowser,
  createAppTestContext,
  createOrg,
  eventually,
  inviteAndAccept,
  ownerOfNewOrg,
  PASSWORD,
  tokenOfInviteUrl,
  unfold,
} from "./helpers.ts";

describe("invitations and mail over SMTP", () => {
  let ctx: TestContext;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  before(async () => {
    smtp = await startSmtpServer();
    ctx = await createAppTestContext({ config: { smtpUrl: smtp.url }, memoryLimiter: true });
  });
  after(async () => {
    await ctx.close();
    await smtp.close();
  });

  test("the operator's invitation is emailed with its link", async () => {
    const orgId = await createOrg(ctx);
    const { body } = await inviteAndAccept(ctx, orgId, "mailed@example.com", "owner").then(async (user) => ({
      body: await user.browser.request("GET", "/app/api/v1/session").then((r) => r.body),
    }));
    assert.equal(body.role, "owner");
    const mail = smtp.mails.find((m) => m.to.includes("mailed@example.com"));
    assert.ok(mail, "an invitation email reached the SMTP server");
    assert.match(unfold(mail.raw), /http:\/\/porchlight\.test\/app\/invite\/[A-Za-z0-9_-]{43}/);
  });

  test("password reset by email link: the new password signs in, the old one and old sessions no longer work", async () => {
    const owner = await ownerOfNewOrg(ctx, "forgetful@example.com");
    const browser = new AppBrowser(ctx);
    const asked = await browser.request("POST", "/app/api/v1/auth/request-password-reset", {
      body: { email: "forgetful@example.com", redirectTo: "http://porchlight.test/app/reset-password" },
    });
    assert.equal(asked.status, 200, asked.text);
    const mail = await eventually(() =>
      smtp.mails.find((m) => m.to.includes("forgetful@example.com") && /reset/i.test(m.raw)),
    );
    assert.ok(mail, "a reset email reached the SMTP server");
    const token = /\/app\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(unfold(mail.raw))?.[1];
    assert.ok(token, "the mail carries the reset link");

    const reset = await browser.request("POST", "/app/api/v1/auth/reset-password", {
      body: { token, newPassword: "a brand new passphrase" },
    });
    assert.equal(reset.status, 200, reset.text);
    assert.equal((await browser.signIn("forgetful@example.com", PASSWORD)).status, 401);
    assert.equal((await browser.signIn("forgetful@example.com", "a brand new passphrase")).status, 200);
    assert.equal((await owner.browser.request("GET", "/app/api/v1/session")).status, 401, "old sessions end");
  });

  test("an owner invites a member from the app; the member cannot see the team", async () => {
    const owner = await ownerOfNewOrg(ctx);
    const invited = await owner.browser.request("POST", "/app/api/v1/team/invitations", {
      body: { email: "crew@example.com", role: "member" },
    });
    assert.equal(invited.status, 201, invited.text);
    assert.equal(invited.body.invite_url, undefined, "the inviting owner gets no link that accepts");
    const mail = smtp.mails.find((m) => m.to.includes("crew@example.com"));
    const link = /http:\/\/porchlight\.test\/app\/invite\/[A-Za-z0-9_-]+/.exec(unfold(mail?.raw ?? ""))?.[0];
    assert.ok(link, "the link is in the invitee's email");
    const member = new AppBrowser(ctx);
    const accepted = await member.request(
      "POST",
      `/app/api/v1/invitations/${encodeURIComponent(tokenOfInviteUrl(link))}/accept`,
      { body: { name: "Crew Lead", password: PASSWORD } },
    );
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.organization.id, owner.orgId);
    assert.equal(accepted.body.role, "member");

    const team = await owner.browser.request("GET", "/app/api/v1/team");
    assert.deepEqual(
      team.body.members.map((m: { email: string; role: string }) => [m.email, m.role]).sort(),
      [
        ["crew@example.com", "member"],
        [owner.email, "owner"],
      ].sort(),
    );
    const forbidden = await member.request("GET", "/app/api/v1/team");
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.code, "forbidden");
  });

  test("the last owner can be neither demoted nor removed; a removed member is signed out of the org", async () => {
    const owner = await ownerOfNewOrg(ctx);
    const member = await inviteAndAccept(ctx, owner.orgId, `m-${Date.now()}@example.com`, "member");
    const team = await owner.browser.request("GET", "/app/api/v1/team");
    const ownerRow = team.body.members.find((m: { role: string }) => m.role === "owner");
    const memberRow = team.body.members.find((m: { role: string }) => m.role === "member");
    const demote = await owner.browser.request("PATCH", `/app/api/v1/team/members/${ownerRow.id}`, {
      body: { role: "member" },
    });
    assert.equal(demote.status, 409);
    assert.equal(demote.body.error.code, "last_owner");
    const removed = await owner.browser.request("DELETE", `/app/api/v1/team/members/${memberRow.id}`);
    assert.equal(removed.status, 204);
    assert.equal((await member.browser.request("GET", "/app/api/v1/session")).status, 401);
  });

  test("two owners demoting or removing each other at once leave one owner, never none", async () => {
    for (const change of ["demote", "remove"] as const) {
      const first = await ownerOfNewOrg(ctx);
      const second = await inviteAndAccept(
        ctx,
        first.orgId,
        `o2-${change}-${Date.now()}@example.com`,
        "owner",
      );
      const team = await first.browser.request("GET", "/app/api/v1/team");
      const rows = team.body.members as { id: string; email: string }[];
      const secondRow = rows.find((m) => m.email.startsWith(`o2-${change}`))!;
      const firstRow = rows.find((m) => m.id !== secondRow.id)!;
      const act = (actor: typeof first, rowId: string) =>
        change === "demote"
          ? actor.browser.request("PATCH", `/app/api/v1/team/members/${rowId}`, { body: { role: "member" } })
          : actor.browser.request("DELETE", `/app/api/v1/team/members/${rowId}`);
      const answers = await Promise.all([act(first, secondRow.id), act(second, firstRow.id)]);
      const statuses = answers.map((answer) => answer.status).sort();
      // Refused as the last owner (409), as no owner any more (403) when the other demotion came first,
      // or as signed out of the org (401) when the other removal came first.
      assert.ok(
        statuses.some(
          (status) => status === 409 || status === 403 || (change === "remove" && status === 401),
        ),
        `${change}: ${statuses}`,
      );
      const owners = await queryOne<{ n: number }>(
        ctx.database.db,
        sql`SELECT count(*)::int AS n FROM org_members WHERE org_id = ${first.orgId}::uuid AND role = 'owner'`,
      );
      assert.equal(owners?.n, 1, `${change}: exactly one owner is left`);
    }
  });

  test("an existing account signs in and joins another org's invitation: one user in both", async () => {
    const first = await ownerOfNewOrg(ctx, "twohats@example.com");
    const otherOrg = await createOrg(ctx, "Second Co");
    const again = await inviteAndAccept(ctx, otherOrg, "twohats@example.com", "member");
    assert.equal(again.userId, first.userId);
    const session = await again.browser.request("GET", "/app/api/v1/session");
    assert.deepEqual([session.body.organization.id, session.body.role], [otherOrg, "member"]);
  });
  test("an owner removed or made a member leaves no invitation behind to come back by", async () => {
    const first = await ownerOfNewOrg(ctx);
    const linkTo = (email: string) => {
      const mail = [...smtp.mails].reverse().find((m) => m.to.includes(email));
      return /http:\/\/porchlight\.test\/app\/invite\/[A-Za-z0-9_-]+/.exec(unfold(mail?.raw ?? ""))?.[0];
    };
    const accept = (email: string) =>
      new AppBrowser(ctx).request(
        "POST",
        `/app/api/v1/invitations/${encodeURIComponent(tokenOfInviteUrl(linkTo(email)!))}/accept`,
        { body: { name: "Come Back", password: PASSWORD } },
      );
    const invite = (by: { browser: AppBrowser }, email: string, role: "owner" | "member") =>
      by.browser.request("POST", "/app/api/v1/team/invitations", { body: { email, role } });
    const rowOf = async (email: string) =>
      (await first.browser.request("GET", "/app/api/v1/team")).body.members.find(
        (m: { email: string }) => m.email === email,
      );
    const pending = async () =>
      (await first.browser.request("GET", "/app/api/v1/team")).body.invitations.map(
        (i: { email: string; invited_by: string | null }) => [i.email, i.invited_by],
      );

    // Removed: every invitation they sent is cancelled, and its mailed link accepts nothing.
    const leaving = await inviteAndAccept(
      ctx,
      first.orgId,
      "leaving-owner@example.com",
      "owner",
      "Lee Leaving",
    );
    assert.equal((await invite(leaving, "lee-alt@example.com", "owner")).status, 201);
    assert.equal((await invite(leaving, "lee-crew@example.com", "member")).status, 201);
    assert.deepEqual((await pending()).sort(), [
      ["lee-alt@example.com", "Lee Leaving"],
      ["lee-crew@example.com", "Lee Leaving"],
    ]);
    const leavingRow = await rowOf("leaving-owner@example.com");
    assert.equal(
      (await first.browser.request("DELETE", `/app/api/v1/team/members/${leavingRow.id}`)).status,
      204,
    );
    assert.deepEqual(await pending(), []);
    assert.equal((await accept("lee-alt@example.com")).status, 404, "the planted owner invitation is gone");

    // Made a member: the owner invitations they sent go (a member could not send them); others stay.
    const demoted = await inviteAndAccept(
      ctx,
      first.orgId,
      "demoted-owner@example.com",
      "owner",
      "Dee Demoted",
    );
    assert.equal((await invite(demoted, "dee-alt@example.com", "owner")).status, 201);
    assert.equal((await invite(demoted, "dee-crew@example.com", "member")).status, 201);
    const demotedRow = await rowOf("demoted-owner@example.com");
    const demote = await first.browser.request("PATCH", `/app/api/v1/team/members/${demotedRow.id}`, {
      body: { role: "member" },
    });
    assert.equal(demote.status, 200, demote.text);
    assert.deepEqual(await pending(), [["dee-crew@example.com", "Dee Demoted"]]);
    assert.equal((await accept("dee-alt@example.com")).status, 404);

    // An invitation racing its sender's removal: refused, or cancelled with the removal; never left open.
    const racing = await inviteAndAccept(ctx, first.orgId, "racing-owner@example.com", "owner", "Ray Racing");
    const racingRow = await rowOf("racing-owner@example.com");
    const [invited, removed] = await Promise.all([
      invite(racing, "ray-alt@example.com", "owner"),
      first.browser.request("DELETE", `/app/api/v1/team/members/${racingRow.id}`),
    ]);
    assert.equal(removed.status, 204, removed.text);
    assert.ok([201, 401, 403].includes(invited.status), `${invited.status} ${invited.text}`);
    assert.deepEqual(
      (await pending()).filter(([email]: [string]) => email === "ray-alt@example.com"),
      [],
      "no invitation of the removed owner is pending",
    );
  });
});
