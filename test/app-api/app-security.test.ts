/**
 * Issue 37's findings on the app, one test each (uploads, names, CSV, owners' decisions,
 * transport, session tokens): each one failed on the code before its fix.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import sharp from "sharp";
import { PUBLIC_ROUTE_BODY_LIMIT } from "../../src/app-api/routes/index.ts";
import { INVITATIONS_PER_EMAIL, INVITATIONS_PER_ORG } from "../../src/app-api/routes/team.ts";
import { sql } from "../../src/db/database.ts";
import { admin, call, createOrg as createOrgWithKey, recordMailing } from "../helpers/api.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";
import { orgWithAutomation } from "../pipeline/helpers.ts";
import {
  AppBrowser,
  type AppResponse,
  createAppTestContext,
  inviteAndAccept,
  ownerOfNewOrg,
  readableEml,
  type SignedInUser,
} from "./helpers.ts";

/** The 315-byte logo: seconds of filter work at 3100 × 3100. */
const HOSTILE_SVG = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="3100" height="3100"><filter id="f" x="0" y="0" width="1" height="1"><feTurbulence baseFrequency=".01" numOctaves="10"/><feGaussianBlur stdDeviation="400"/><feMorphology operator="dilate" radius="300"/></filter><rect width="3100" height="3100" filter="url(#f)"/></svg>`,
);

/** Plain shapes only, but thousands of full-size translucent ones: passes the allow-list, draws slowly. */
function slowPlainSvg(shapes = 9000): Buffer {
  const rect = '<rect width="1000" height="1000" fill="#1d4ed8" opacity=".5"/>';
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1000 1000" width="1000" height="1000">${rect.repeat(shapes)}</svg>`,
  );
}

const elapsed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
};

const uploadLogo = (user: SignedInUser, body: Buffer, contentType: string) =>
  user.browser.request("PUT", "/app/api/v1/organization/logo", {
    payload: body,
    headers: { "content-type": contentType },
  });

describe(`security: logo uploads have a bounded cost (${databaseLabel})`, () => {
  let ctx: TestContext;
  let owner: SignedInUser;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    owner = await ownerOfNewOrg(ctx);
  });
  after(() => ctx.close());

  test("a normal PNG and SVG logo are stored as PNGs of their shape", async () => {
    const png = await sharp({ create: { width: 200, height: 80, channels: 3, background: "#1d4ed8" } })
      .png()
      .toBuffer();
    const uploaded = await uploadLogo(owner, png, "image/png");
    assert.equal(uploaded.status, 200, uploaded.text);
    assert.equal(uploaded.body.has_logo, true);
    const svg = Buffer.from(
      `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" width="240" height="120" inkscape:version="1.3"><title>Logo</title><style>.a{fill:#00aa44}</style><rect class="a" width="240" height="120"/><text x="10" y="60" style="fill:#fff;font-size:20px">Bright</text></svg>`,
    );
    const drawn = await uploadLogo(owner, svg, "image/svg+xml");
    assert.equal(drawn.status, 200, drawn.text);
    const stored = await ctx.app.inject({
      method: "GET",
      url: "/app/api/v1/organization/logo",
      headers: { cookie: [...owner.browser.cookies].map(([n, v]) => `${n}=${v}`).join("; ") },
    });
    assert.equal(stored.statusCode, 200);
    const { width, height, format } = await sharp(stored.rawPayload).metadata();
    assert.equal(format, "png");
    assert.deepEqual([width, height], [480, 240], "drawn at twice its size for print, same shape");
    const { data } = await sharp(stored.rawPayload).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([...data.subarray(0, 3)], [0x00, 0xaa, 0x44], "the style sheet's colour is drawn");
  });

  test("the issue's filter SVG is refused at once, naming what a logo may not use", async () => {
    const [refused, ms] = await elapsed(() => uploadLogo(owner, HOSTILE_SVG, "image/svg+xml"));
    assert.equal(refused.status, 422, refused.text);
    assert.match(refused.body.error.message, /<filter>/);
    assert.ok(ms < 2000, `answered in ${Math.round(ms)} ms`);
    for (const svg of [
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><foreignObject width="10" height="10"/></svg>`,
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"><rect id="r" width="1" height="1"/><use x:href="#r"/></svg>`,
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"><image x:href="http://127.0.0.1:9/a.png" width="10" height="10"/></svg>`,
      `<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><text>&a;</text></svg>`,
    ]) {
      const answer = await uploadLogo(owner, Buffer.from(svg), "image/svg+xml");
      assert.equal(answer.status, 422, `${svg}: ${answer.text}`);
    }
  });

  test("an SVG of allowed shapes that draws too long is stopped at the time limit; the next logo still draws", async () => {
    const [stopped, ms] = await elapsed(() => uploadLogo(owner, slowPlainSvg(), "image/svg+xml"));
    assert.equal(stopped.status, 422, stopped.text);
    assert.match(stopped.body.error.message, /took longer than/);
    assert.ok(ms < 3000, `stopped after ${Math.round(ms)} ms`);
    const small = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 10"><rect width="20" height="10" fill="red" filter="url(http://127.0.0.1:9/f)"/></svg>`,
    );
    const next = await uploadLogo(owner, small, "image/svg+xml");
    assert.equal(next.status, 200, next.text);
  });

  test("another tenant's session stays fast while four hostile uploads run", async () => {
    const attackers = await Promise.all([0, 1, 2, 3].map(() => ownerOfNewOrg(ctx)));
    const bystander = await ownerOfNewOrg(ctx);
    const uploads = attackers.map((attacker, index) =>
      elapsed(() => uploadLogo(attacker, index % 2 ? HOSTILE_SVG : slowPlainSvg(), "image/svg+xml")),
    );
    const sessionTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [session, ms] = await elapsed(() => bystander.browser.request("GET", "/app/api/v1/session"));
      assert.equal(session.status, 200);
      sessionTimes.push(ms);
    }
    const results = await Promise.all(uploads);
    for (const [answer] of results) assert.notEqual(answer.status, 200, answer.text);
    assert.ok(Math.max(...sessionTimes) < 1000, `GET /session took ${sessionTimes.map(Math.round)} ms`);
  });

  test("an organization's logo uploads are limited; a wrong content type is 415", async () => {
    const attacker = await ownerOfNewOrg(ctx);
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++)
      statuses.push((await uploadLogo(attacker, HOSTILE_SVG, "image/svg+xml")).status);
    assert.deepEqual(statuses.slice(0, 20), Array(20).fill(422));
    assert.deepEqual(statuses.slice(20), Array(5).fill(429), "past 20 an hour, the organization waits");
    for (const type of ["image/gif", "text/plain", "application/json", "application/octet-stream"]) {
      const answer = await uploadLogo(owner, Buffer.from("GIF89a"), type);
      assert.equal(answer.status, 415, `${type}: ${answer.text}`);
    }
  });
});

const stripNames = (response: AppResponse) => `${response.status} ${response.text}`;

describe(`security: names are one line of text; mail headers are built by nodemailer (${databaseLabel})`, () => {
  let ctx: TestContext & { dataDir: string };
  let owner: SignedInUser;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    owner = await ownerOfNewOrg(ctx);
  });
  after(() => ctx.close());

  test("a name with a line break or another control character is refused with 422 naming the field", async () => {
    const hostile = "Acme\r\nBcc: victim@example.com";
    const business = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { business_name: hostile },
    });
    assert.equal(business.status, 422, stripNames(business));
    assert.match(business.body.error.message, /business_name/);

    const userName = await owner.browser.request("PATCH", "/app/api/v1/me", { body: { name: "Pat\u0007" } });
    assert.equal(userName.status, 422, stripNames(userName));
    assert.match(userName.body.error.message, /name/);

    const automation = await owner.browser.request("POST", "/app/api/v1/automations", {
      body: { name: "Roofs\nX-Injected: 1" },
    });
    assert.equal(automation.status, 422, stripNames(automation));
    assert.match(automation.body.error.message, /name/);
    const draft = await owner.browser.request("POST", "/app/api/v1/automations", { body: { name: "Roofs" } });
    assert.equal(draft.status, 201, draft.text);
    const renamed = await owner.browser.request("PATCH", `/app/api/v1/automations/${draft.body.id}`, {
      body: { name: "Roofs\tand more" },
    });
    assert.equal(renamed.status, 422, stripNames(renamed));

    const org = await admin(ctx, "POST", "/orgs", { name: "Evil\r\nX-Injected: 1" });
    assert.equal(org.status, 422, org.text);
    assert.match(org.text, /name/);
    const separated = await admin(ctx, "POST", "/orgs", { name: "Evil\u2028Org" });
    assert.equal(separated.status, 422, separated.text);

    // An API key's name, from the app or the operator: no line break, no right-to-left override
    // (which turned "…gnp.exe" and the revoke dialog's sentence after it around).
    const appKey = await owner.browser.request("POST", "/app/api/v1/keys", { body: { name: "CRM\nX: 1" } });
    assert.equal(appKey.status, 422, stripNames(appKey));
    assert.match(appKey.body.error.message, /name/);
    const operatorKey = await admin(ctx, "POST", `/orgs/${owner.orgId}/keys`, { name: "\u202Eevil gnp.exe" });
    assert.equal(operatorKey.status, 422, operatorKey.text);
    assert.match(operatorKey.text, /name/);

    const fine = await owner.browser.request("PATCH", "/app/api/v1/organization", {
      body: { business_name: "Bright Roofing & Sons — Zürich 👷" },
    });
    assert.equal(fine.status, 200, fine.text);
  });

  test("an invitation's mail gets no header from a business name stored before names were checked", async () => {
    await ctx.database.db.execute(
      sql`UPDATE organization_profiles SET business_name = ${"Acme\r\nBcc: victim@example.com\r\nX-Injected: yes"}
          WHERE org_id = ${owner.orgId}::uuid`,
    );
    const invited = await admin(ctx, "POST", `/orgs/${owner.orgId}/invitations`, {
      email: "new-member@example.com",
      role: "member",
    });
    assert.equal(invited.status, 201, invited.text);
    const outbox = path.join(ctx.dataDir, "mail-outbox");
    const files = readdirSync(outbox).filter((file) => file.endsWith(".eml"));
    const eml = files
      .map((file) => readFileSync(path.join(outbox, file), "utf8"))
      .find((text) => text.includes("new-member@example.com"));
    assert.ok(eml, "the invitation was written to the outbox");
    const headers = eml.split(/\r\n\r\n/)[0]!.split("\r\n");
    assert.ok(!headers.some((line) => /^(bcc|x-injected):/i.test(line)), headers.join("\n"));
    assert.equal(headers.filter((line) => /^to:/i.test(line)).length, 1);
    assert.ok(headers.some((line) => /^subject:/i.test(line)));
  });

  test("an invitation quotes the business name as the business's own words, never as the service's", async () => {
    await ctx.database.db.execute(
      sql`UPDATE organization_profiles SET business_name = ${"Porchlight Security: your account is locked"}
          WHERE org_id = ${owner.orgId}::uuid`,
    );
    const invited = await admin(ctx, "POST", `/orgs/${owner.orgId}/invitations`, {
      email: "quoted-name@example.com",
      role: "member",
    });
    assert.equal(invited.status, 201, invited.text);
    const outbox = path.join(ctx.dataDir, "mail-outbox");
    const eml = readdirSync(outbox)
      .filter((file) => file.endsWith(".eml"))
      .map((file) => readFileSync(path.join(outbox, file), "utf8"))
      .find((text) => text.includes("quoted-name@example.com"));
    assert.ok(eml, "the invitation was written to the outbox");
    // Encoded words joined and decoded (the subject is Q-encoded, the body quoted-printable), unfolded.
    const unfolded = readableEml(eml);
    assert.match(
      unfolded,
      /^Subject: Invitation to join Porchlight Security: your account is locked on Porchlight\r?$/m,
    );
    assert.match(
      unfolded,
      /The business "Porchlight Security: your account is locked" invites you to its Porchlight account as a member\./,
    );
    assert.match(unfolded, /Its name is written by the business itself, not by Porchlight\./);
  });
});

describe(`security: CSV exports never start a formula (${databaseLabel})`, () => {
  let ctx: TestContext;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
  });
  after(() => ctx.close());

  test("the conversions CSV defuses a formula after a separator, as the import export does", async () => {
    const org = await createOrgWithKey(ctx);
    const owner = await inviteAndAccept(ctx, org.orgId, "csv-owner@example.com", "owner");
    const today = new Date().toISOString().slice(0, 10);
    await recordMailing(ctx, org.orgId, [{ address: "1 Pine St, Springfield, IL 62704" }], "Pine");
    const won = await call(ctx, "POST", "/api/v1/conversions", {
      key: org.key,
      body: {
        address: "1 Pine St, Springfield, IL 62704",
        deal_id: "x;=1+1",
        deal_name: "Roof\n@SUM(A1)",
        deal_amount: "100",
        deal_date: today,
      },
    });
    assert.equal(won.body.matched, true, won.text);
    const csv = await owner.browser.request("GET", "/app/api/v1/revenue/conversions.csv");
    const row = csv.text.split("\r\n")[1]!;
    assert.ok(row.startsWith(`"x;'=1+1","Roof\n'@SUM(A1)",`), row);
  });
});

describe(`security: owners decide what spends money or lowers safety (${databaseLabel})`, () => {
  let ctx: TestContext;
  let owner: SignedInUser;
  let member: SignedInUser;
  let automationId: string;

  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
    const org = await orgWithAutomation(ctx);
    automationId = org.automationId;
    owner = await inviteAndAccept(ctx, org.orgId, "owner-decides@example.com", "owner");
    member = await inviteAndAccept(ctx, org.orgId, "member-asks@example.com", "member");
  });
  after(() => ctx.close());

  const patchSafety = (user: SignedInUser, body: Record<string, unknown>) =>
    user.browser.request("PATCH", `/app/api/v1/automations/${automationId}/safety`, { body });

  test("a member may make an automation safer but not switch approval off, shorten a hold or raise a cap", async () => {
    const safer = await patchSafety(member, {
      approval_required: true,
      hold_minutes: 120,
      monthly_card_cap: 100,
      monthly_spend_cap_cents: 5000,
    });
    assert.equal(safer.status, 200, safer.text);
    for (const loosening of [
      { approval_required: false },
      { auto_approve_after: 5 },
      { hold_minutes: 30 },
      { monthly_card_cap: 500 },
      { monthly_card_cap: null },
      { monthly_spend_cap_cents: null },
    ]) {
      const refused = await patchSafety(member, loosening);
      assert.equal(refused.status, 403, `${JSON.stringify(loosening)}: ${refused.text}`);
    }
    // Said in words, each on the field it refuses: the builder shows both as they are.
    const both = await patchSafety(member, { hold_minutes: 30, monthly_card_cap: null });
    assert.equal(both.status, 403, both.text);
    assert.equal(
      both.body.error.message,
      "Only an owner can shorten the hold window. Only an owner can raise or remove a monthly cap.",
    );
    assert.deepEqual(both.body.error.details, {
      fields: {
        hold_minutes: "Only an owner can shorten the hold window.",
        monthly_card_cap: "Only an owner can raise or remove a monthly cap.",
      },
    });
    const unchanged = await member.browser.request("GET", `/app/api/v1/automations/${automationId}/safety`);
    assert.equal(unchanged.body.approval_required, true);
    assert.equal(unchanged.body.hold_minutes, 120);
    const tighter = await patchSafety(member, { hold_minutes: 240, monthly_card_cap: 50 });
    assert.equal(tighter.status, 200, tighter.text);
    const byOwner = await patchSafety(owner, {
      approval_required: false,
      hold_minutes: 0,
      monthly_card_cap: null,
    });
    assert.equal(byOwner.status, 200, byOwner.text);
  });
});

describe(`security: transport and session tokens (${databaseLabel})`, () => {
  test("Strict-Transport-Security is on every response when PUBLIC_BASE_URL is https, and only then", async () => {
    const https = await createAppTestContext({ config: { publicBaseUrl: "https://porchlight.test" } });
    const http = await createAppTestContext();
    try {
      for (const url of ["/healthz", "/app/", "/app/api/v1/session", "/api/v1/me", "/nowhere"]) {
        const secure = await https.app.inject({ method: "GET", url });
        assert.equal(
          secure.headers["strict-transport-security"],
          "max-age=31536000; includeSubDomains",
          `${url} (${secure.statusCode})`,
        );
        const plain = await http.app.inject({ method: "GET", url });
        assert.equal(plain.headers["strict-transport-security"], undefined, url);
      }
    } finally {
      await https.close();
      await http.close();
    }
  });

  test("sign-in, get-session and list-sessions answer no raw session token; the session still works", async () => {
    const ctx = await createAppTestContext({ memoryLimiter: true });
    try {
      const org = await createOrgWithKey(ctx);
      const first = await inviteAndAccept(ctx, org.orgId, "tokens@example.com", "owner");
      const signedIn = await first.browser.signIn("tokens@example.com");
      assert.equal(signedIn.status, 200, signedIn.text);
      const cookieToken = [...first.browser.cookies.values()].map((v) => decodeURIComponent(v).split(".")[0]);
      for (const url of ["/app/api/v1/auth/list-sessions", "/app/api/v1/auth/get-session"]) {
        const answer = await first.browser.request("GET", url);
        assert.equal(answer.status, 200, answer.text);
        assert.doesNotMatch(answer.text, /"token"/, `${url}: ${answer.text}`);
        for (const token of cookieToken)
          if (token && token.length > 16) assert.ok(!answer.text.includes(token));
      }
      assert.doesNotMatch(signedIn.text, /"token"/, signedIn.text);
      const session = await first.browser.request("GET", "/app/api/v1/session");
      assert.equal(session.status, 200, "the cookie, not a token in a body, carries the session");
    } finally {
      await ctx.close();
    }
  });
});

describe(`security: an owner's invitations cannot flood a mailbox (${databaseLabel})`, () => {
  let ctx: TestContext & { dataDir: string };
  before(async () => {
    ctx = await createAppTestContext({ memoryLimiter: true });
  });
  after(() => ctx.close());

  const invite = (owner: SignedInUser, email: string) =>
    owner.browser.request("POST", "/app/api/v1/team/invitations", { body: { email, role: "member" } });
  const mailsTo = (email: string) =>
    readdirSync(path.join(ctx.dataDir, "mail-outbox")).filter((file) =>
      readFileSync(path.join(ctx.dataDir, "mail-outbox", file), "utf8").includes(`To: ${email}`),
    ).length;

  test(`one email gets at most ${INVITATIONS_PER_EMAIL.limit} invitations an hour from an organization`, async () => {
    // Each invitation is a mail the service sends: an owner once mailed one address 20 times in a
    // row (80 invitations in a second), with the organization's name in each.
    const owner = await ownerOfNewOrg(ctx);
    const statuses: number[] = [];
    for (let i = 0; i < INVITATIONS_PER_EMAIL.limit + 3; i++)
      statuses.push((await invite(owner, "flooded@example.com")).status);
    assert.deepEqual(
      statuses.slice(0, INVITATIONS_PER_EMAIL.limit),
      Array(INVITATIONS_PER_EMAIL.limit).fill(201),
    );
    assert.deepEqual(statuses.slice(INVITATIONS_PER_EMAIL.limit), [429, 429, 429]);
    assert.equal(mailsTo("flooded@example.com"), INVITATIONS_PER_EMAIL.limit);
    const other = await ownerOfNewOrg(ctx);
    assert.equal(
      (await invite(other, "flooded@example.com")).status,
      201,
      "another organization is not held back",
    );
  });

  test(`an organization sends at most ${INVITATIONS_PER_ORG.limit} invitations an hour`, async () => {
    const owner = await ownerOfNewOrg(ctx);
    const statuses: number[] = [];
    for (let i = 0; i < INVITATIONS_PER_ORG.limit; i++)
      statuses.push((await invite(owner, `crew-${i}@example.com`)).status);
    assert.deepEqual(
      statuses.slice(0, INVITATIONS_PER_ORG.limit),
      Array(INVITATIONS_PER_ORG.limit).fill(201),
    );
    const blocked = await invite(owner, "one-more@example.com");
    assert.equal(blocked.status, 429, blocked.text);
    assert.equal(blocked.body.error.code, "rate_limited");
    assert.ok(Number(blocked.headers["retry-after"]) > 0);
    assert.equal(mailsTo("one-more@example.com"), 0, "no mail past the limit");
  });
});

describe(`security: a route anyone may call reads at most 16 KiB (${databaseLabel})`, () => {
  test("sign-in, a reset request and an invitation's accept refuse a larger body unread; a signed-in route still takes one", async () => {
    const ctx = await createAppTestContext({ memoryLimiter: true });
    try {
      const owner = await ownerOfNewOrg(ctx);
      // A megabyte of such keys cost a third of a second of the event loop to parse, before anyone was known.
      const manyKeys = `{${Array.from({ length: 2_000 }, (_, index) => `"k${index}":1`).join(",")}}`;
      assert.ok(manyKeys.length > PUBLIC_ROUTE_BODY_LIMIT);
      const stranger = new AppBrowser(ctx, "198.51.100.7");
      for (const url of [
        "/app/api/v1/auth/sign-in/email",
        "/app/api/v1/auth/request-password-reset",
        "/app/api/v1/invitations/not-a-real-token/accept",
      ]) {
        const refused = await stranger.request("POST", url, {
          payload: manyKeys,
          headers: { "content-type": "application/json" },
        });
        assert.equal(refused.status, 413, url);
        assert.deepEqual(
          refused.body.error,
          {
            code: "payload_too_large",
            message: `request body exceeds the limit of ${PUBLIC_ROUTE_BODY_LIMIT} bytes`,
          },
          url,
        );
      }
      // The owner signs in as ever; a signed-in route keeps its own limit (a customer list of 20 kB).
      assert.equal((await owner.browser.signIn(owner.email)).status, 200);
      const csv = `street\n${Array.from({ length: 600 }, (_, index) => `${index + 1} Maple Avenue Austin TX 78701`).join("\n")}\n`;
      assert.ok(csv.length > PUBLIC_ROUTE_BODY_LIMIT);
      const uploaded = await owner.browser.request("POST", "/app/api/v1/customers/upload?street=street", {
        payload: csv,
        headers: { "content-type": "text/csv" },
      });
      assert.equal(uploaded.status, 200, uploaded.text);
    } finally {
      await ctx.close();
    }
  });
});
