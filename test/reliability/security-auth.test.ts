/**
 * Security findings of issue 37 on the app's sign-in: the invitation accept route as a password
 * oracle, the per-IP and per-invitation limits of the unauthenticated app routes, and encoded
 * paths that reached Better Auth endpoints outside the proxy's allow-list. Runs on PGlite, or on
 * PostgreSQL when DATABASE_URL is set (unlike the rest of this folder, nothing here races).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import Fastify from "fastify";
import type { Auth } from "../../src/app-api/auth.ts";
import {
  EXPOSED_AUTH_ENDPOINTS,
  registerAuthRoutes,
  SIGN_IN_PER_ACCOUNT,
} from "../../src/app-api/auth-routes.ts";
import { APP_API_PREFIX, AUTH_BASE_PATH } from "../../src/app-api/auth-settings.ts";
import { registerAppErrorHandling } from "../../src/app-api/errors.ts";
import { fixedClock } from "../../src/clock.ts";
import { createMemoryRateLimiter } from "../../src/limits/rate-limiter.ts";
import {
  APP_ORIGIN,
  AppBrowser,
  createAppTestContext,
  inviteAndAccept,
  ownerOfNewOrg,
  PASSWORD,
} from "../app-api/helpers.ts";
import { databaseLabel, type TestContext } from "../helpers/harness.ts";

type AppContext = TestContext & { dataDir: string };

/**
 * The invitation links mailed to `email`, oldest first (the invitee's mailbox: the outbox, without
 * SMTP_URL). Ordered by when each file was written: their names carry the app's clock, which stands
 * still here.
 */
function invitationLinksMailedTo(ctx: AppContext, email: string): string[] {
  const outbox = path.join(ctx.dataDir, "mail-outbox");
  return readdirSync(outbox)
    .map((file) => path.join(outbox, file))
    .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
    .map((file) => readFileSync(file, "utf8"))
    .filter((eml) => eml.includes(`\r\nTo: ${email}\r\n`))
    .flatMap((eml) => eml.match(/https?:\/\/\S+\/app\/invite\/\S+/g) ?? []);
}

/** The secret token of the newest invitation mailed to `email` (its first came with its own organization). */
function mailedToken(ctx: AppContext, email: string): string {
  const links = invitationLinksMailedTo(ctx, email);
  assert.equal(links.length, 2, `the own organization's and the new invitation mailed to ${email}`);
  return decodeURIComponent(new URL(links[1]!).pathname.split("/").at(-1)!);
}

const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.com`;

const sessionCookieSet = (headers: Record<string, unknown>) =>
  [headers["set-cookie"]].flat().some((c) => String(c).startsWith("porchlight.session_token="));

/**
 * One app for the invitation and proxy findings (a fresh database costs a migration run), listening
 * on a loopback port for requests whose path no client may normalise. Its clock stands still, so no
 * limit's window ends halfway through a test.
 */
let ctx: AppContext;
let port: number;
before(async () => {
  ctx = await createAppTestContext({ memoryLimiter: true, clock: fixedClock(new Date()) });
  await ctx.app.listen({ port: 0, host: "127.0.0.1" });
  port = (ctx.app.server.address() as { port: number }).port;
});
after(() => ctx.close());

describe(`invitations are no password oracle (${databaseLabel})`, () => {
  test("an owner who invites another account's email gets no accepting link, and its id neither opens nor accepts the invitation", async () => {
    const victim = await ownerOfNewOrg(ctx, uniqueEmail("victim"));
    const attacker = await ownerOfNewOrg(ctx, uniqueEmail("attacker"));
    const invited = await attacker.browser.request("POST", "/app/api/v1/team/invitations", {
      body: { email: victim.email, role: "member" },
    });
    assert.equal(invited.status, 201, invited.text);
    assert.deepEqual(Object.keys(invited.body).sort(), ["expires_at", "invitation_id"]);
    assert.doesNotMatch(invited.text, /\/invite\//, "no link that accepts the invitation");

    const id = invited.body.invitation_id;
    const lookup = await new AppBrowser(ctx).request("GET", `/app/api/v1/invitations/${id}`);
    assert.equal(lookup.status, 404, "the invitation's id is not its token");
    const guesser = new AppBrowser(ctx, "203.0.113.5");
    for (const password of ["wrong guess 01", "wrong guess 02", PASSWORD]) {
      const guess = await guesser.request("POST", `/app/api/v1/invitations/${id}/accept`, {
        body: { name: "Mallory", password },
      });
      assert.equal(guess.status, 404, `the id accepts nothing (${password}): ${guess.text}`);
      assert.ok(!sessionCookieSet(guess.headers), "no session");
    }
    assert.equal((await guesser.request("GET", "/app/api/v1/session")).status, 401);
  });

  test("the mailed token never takes a password for an existing account, right or wrong: the same refusal, no session", async () => {
    const victim = await ownerOfNewOrg(ctx, uniqueEmail("holder"));
    const inviter = await ownerOfNewOrg(ctx, uniqueEmail("inviter"));
    await inviter.browser.request("POST", "/app/api/v1/team/invitations", {
      body: { email: victim.email, role: "member" },
    });
    const token = mailedToken(ctx, victim.email);
    const browser = new AppBrowser(ctx, "203.0.113.6");
    const lookup = await browser.request("GET", `/app/api/v1/invitations/${encodeURIComponent(token)}`);
    assert.equal(lookup.status, 200, lookup.text);
    assert.equal(lookup.body.email, victim.email);
    assert.ok(!("account_exists" in lookup.body), "the lookup does not say whether the email has an account");

    const answers = [];
    for (const password of ["wrong guess 01", PASSWORD]) {
      const attempt = await browser.request(
        "POST",
        `/app/api/v1/invitations/${encodeURIComponent(token)}/accept`,
        {
          body: { name: "Anyone", password },
        },
      );
      assert.ok(!sessionCookieSet(attempt.headers), "no session from a password");
      answers.push([attempt.status, attempt.body?.error?.code]);
    }
    assert.deepEqual(answers, [
      [409, "sign_in_to_join"],
      [409, "sign_in_to_join"],
    ]);
    const team = await inviter.browser.request("GET", "/app/api/v1/team");
    assert.equal(team.body.members.length, 1, "nobody joined");
  });

  test("an existing account joins only while signed in as that account; the token then works no more", async () => {
    const invitee = await ownerOfNewOrg(ctx, uniqueEmail("joiner"));
    const inviter = await ownerOfNewOrg(ctx, uniqueEmail("host"));
    await inviter.browser.request("POST", "/app/api/v1/team/invitations", {
      body: { email: invitee.email, role: "member" },
    });
    const token = encodeURIComponent(mailedToken(ctx, invitee.email));

    const anonymous = await new AppBrowser(ctx).request("POST", `/app/api/v1/invitations/${token}/join`, {
      body: {},
    });
    assert.equal(anonymous.status, 401, anonymous.text);
    assert.equal(anonymous.body.error.code, "sign_in_to_join");
    const someoneElse = await inviter.browser.request("POST", `/app/api/v1/invitations/${token}/join`, {
      body: {},
    });
    assert.equal(someoneElse.status, 403, someoneElse.text);
    assert.equal(someoneElse.body.error.code, "sign_in_to_join");

    const joined = await invitee.browser.request("POST", `/app/api/v1/invitations/${token}/join`, {
      body: {},
    });
    assert.equal(joined.status, 200, joined.text);
    assert.deepEqual(
      { user: joined.body.user.id, org: joined.body.organization.id, role: joined.body.role },
      { user: invitee.userId, org: inviter.orgId, role: "member" },
    );
    const session = await invitee.browser.request("GET", "/app/api/v1/session");
    assert.equal(session.body.organization.id, inviter.orgId, "the session is in the organization joined");
    const again = await invitee.browser.request("POST", `/app/api/v1/invitations/${token}/join`, {
      body: {},
    });
    assert.equal(again.status, 404, "an invitation works once");
  });
});

describe(`limits on the unauthenticated app routes (${databaseLabel})`, () => {
  const PER_IP = 5;
  let limited: AppContext;
  before(async () => {
    // A clock that stands still keeps every attempt in one fixed window.
    limited = await createAppTestContext({
      memoryLimiter: true,
      clock: fixedClock(new Date()),
      config: { ipRateLimitPerMinute: PER_IP },
    });
  });
  after(() => limited.close());

  test(`one IP takes ${PER_IP} requests a minute across the unauthenticated app routes, the auth proxy included`, async () => {
    const browser = new AppBrowser(limited, "198.51.100.7");
    const calls = [
      () => browser.request("GET", "/app/api/v1/invitations/no-such-token"),
      () =>
        browser.request("POST", "/app/api/v1/invitations/no-such-token/accept", {
          body: { name: "Pat", password: PASSWORD },
        }),
      () => browser.request("POST", "/app/api/v1/invitations/no-such-token/join", { body: {} }),
      () => browser.request("GET", "/app/api/v1/password-resets/no-such-token"),
      () => browser.signIn("nobody@example.com", "wrong password!"),
    ];
    for (const call of calls) assert.notEqual((await call()).status, 429);
    for (const call of calls) {
      const limited = await call();
      assert.equal(limited.status, 429, limited.text);
      assert.equal(limited.body.error.code, "rate_limited");
      assert.ok(Number(limited.headers["retry-after"]) > 0);
    }
    const otherIp = await new AppBrowser(limited, "198.51.100.8").request(
      "GET",
      "/app/api/v1/invitations/no-such-token",
    );
    assert.equal(otherIp.status, 404, "another IP is not held back");
  });

  test("one invitation takes 10 accept or join attempts per window, from any IP", async () => {
    const invitee = await ownerOfNewOrg(limited, uniqueEmail("limited"));
    const inviter = await ownerOfNewOrg(limited, uniqueEmail("limiter"));
    await inviter.browser.request("POST", "/app/api/v1/team/invitations", {
      body: { email: invitee.email, role: "member" },
    });
    const token = encodeURIComponent(mailedToken(limited, invitee.email));
    for (let attempt = 0; attempt < 10; attempt++) {
      const response = await new AppBrowser(limited, `10.1.${attempt}.1`).request(
        "POST",
        `/app/api/v1/invitations/${token}/accept`,
        { body: { name: "Guess", password: `wrong guess ${attempt}!` } },
      );
      assert.equal(response.status, 409, `attempt ${attempt + 1}: ${response.text}`);
    }
    const refused = await new AppBrowser(limited, "10.2.0.1").request(
      "POST",
      `/app/api/v1/invitations/${token}/accept`,
      {
        body: { name: "Guess", password: PASSWORD },
      },
    );
    assert.equal(refused.status, 429, refused.text);
    const join = await invitee.browser.request("POST", `/app/api/v1/invitations/${token}/join`, { body: {} });
    assert.equal(join.status, 429, "joining counts against the same invitation");
  });
});

/** A request sent with its path exactly as written (no client normalises `..` or `%3F`). */
function rawRequest(
  port: number,
  method: "GET" | "POST",
  target: string,
  options: { cookie?: string; body?: unknown } = {},
): Promise<{ status: number; text: string }> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: target,
        headers: {
          ...(options.cookie ? { cookie: options.cookie } : {}),
          ...(method === "POST" ? { origin: APP_ORIGIN } : {}),
          ...(payload
            ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
            : {}),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

const cookieOf = (browser: AppBrowser) => [...browser.cookies].map(([n, v]) => `${n}=${v}`).join("; ");

describe(`encoded paths reach no Better Auth endpoint outside the allow-list (${databaseLabel})`, () => {
  test("a member cannot read the organization's members through get-session%3F/../", async () => {
    const owner = await ownerOfNewOrg(ctx, uniqueEmail("boss"));
    const member = await inviteAndAccept(ctx, owner.orgId, uniqueEmail("crew"), "member");
    assert.equal((await member.browser.request("GET", "/app/api/v1/team")).status, 403);
    for (const trick of [
      "get-session%3F/../organization/get-full-organization",
      "get-session%3f/../organization/get-full-organization",
      "get-session/%2e%2e/organization/get-full-organization",
      "get-session/%2E%2E/organization/get-full-organization",
      "get-session%2F..%2Forganization/get-full-organization",
      "get-session%5C..%5Corganization/get-full-organization",
      "get-session/../organization/get-full-organization",
      "organization/list/..//organization/get-full-organization",
    ]) {
      const answer = await rawRequest(port, "GET", `${AUTH_BASE_PATH}/${trick}`, {
        cookie: cookieOf(member.browser),
      });
      assert.equal(answer.status, 404, `${trick}: ${answer.text.slice(0, 200)}`);
      assert.equal(JSON.parse(answer.text).error.code, "not_found");
      assert.doesNotMatch(answer.text, new RegExp(owner.email), "no member's email");
    }
    const plain = await rawRequest(port, "GET", `${AUTH_BASE_PATH}/get-session?disableCookieCache=true`, {
      cookie: cookieOf(member.browser),
    });
    assert.equal(plain.status, 200, "the exposed endpoint still answers, with its query");
  });

  test("an owner can neither rename nor delete the organization through Better Auth", async () => {
    const owner = await ownerOfNewOrg(ctx, uniqueEmail("renamer"));
    await inviteAndAccept(ctx, owner.orgId, uniqueEmail("teammate"), "member");
    const renamed = await rawRequest(port, "POST", `${AUTH_BASE_PATH}/sign-out%3F/../organization/update`, {
      cookie: cookieOf(owner.browser),
      body: { organizationId: owner.orgId, data: { name: "Renamed by the back door" } },
    });
    assert.equal(renamed.status, 404, renamed.text);
    const deleted = await rawRequest(port, "POST", `${AUTH_BASE_PATH}/sign-out%3F/../organization/delete`, {
      cookie: cookieOf(owner.browser),
      body: { organizationId: owner.orgId },
    });
    assert.equal(deleted.status, 404, deleted.text);
    const session = await owner.browser.request("GET", "/app/api/v1/session");
    assert.equal(session.status, 200, "the owner is still signed in to the organization");
    assert.equal(session.body.organization.name, "Acme Roofing");
    const team = await owner.browser.request("GET", "/app/api/v1/team");
    assert.equal(team.body.members.length, 2, "every membership is still there");
  });

  test("sign-in/email is not reachable past the per-account limit under another endpoint's name", async () => {
    const owner = await ownerOfNewOrg(ctx, uniqueEmail("locked"));
    for (let attempt = 0; attempt < SIGN_IN_PER_ACCOUNT.limit; attempt++) {
      await new AppBrowser(ctx, `10.3.${attempt}.1`).signIn(owner.email, "wrong password!");
    }
    assert.equal((await new AppBrowser(ctx, "10.4.0.1").signIn(owner.email)).status, 429);
    const bypass = await rawRequest(port, "POST", `${AUTH_BASE_PATH}/sign-out%3F/../sign-in/email`, {
      body: { email: owner.email, password: PASSWORD },
    });
    assert.equal(bypass.status, 404, bypass.text);
  });
});

/** Segments the exposed endpoints start from, and what a crafted path might try to reach. */
const EXPOSED_PATHS = [...EXPOSED_AUTH_ENDPOINTS].map((endpoint) => endpoint.split(" ")[1]!.slice(1));
const TARGETS = [
  ...EXPOSED_PATHS,
  "organization/get-full-organization",
  "organization/update",
  "organization/delete",
  "organization/create",
  "organization/invite-member",
  "organization/accept-invitation",
  "sign-up/email",
  "update-user",
  "delete-user",
  "change-email",
  "api/reference",
];
const TRICKS = [
  "/",
  "//",
  "/..",
  "/../",
  "/.",
  "/./",
  "..",
  ".",
  "%3F",
  "%3f",
  "%3F/..",
  "%3f/../",
  "%2e",
  "%2E",
  "%2e%2e",
  "/%2e%2e/",
  "/%2E%2E",
  "%2f",
  "%2F..%2F",
  "%5c",
  "%5C..%5C",
  "\\",
  "\\..\\",
  "%252e%252e",
  "%23",
  "?",
  "?x=/../",
  "#",
  ";",
  "%00",
  "%20",
];

describe("auth proxy property: no crafted path reaches Better Auth outside the allow-list", () => {
  test("encoded and dot segments after an exposed endpoint never reach an endpoint the app does not use", async () => {
    const app = Fastify();
    const reached: string[] = [];
    // Stands in for Better Auth's handler and records what its router resolves: better-call routes
    // `new URL(request.url).pathname` minus the base path (node_modules/better-call/dist/router.mjs).
    const auth = {
      handler: async (request: Request) => {
        const pathname = new URL(request.url).pathname;
        reached.push(
          `${request.method} ${pathname.startsWith(`${AUTH_BASE_PATH}/`) ? pathname.slice(AUTH_BASE_PATH.length) : pathname}`,
        );
        return new Response(null, { status: 204 });
      },
    } as unknown as Auth;
    await app.register(
      async (scope) => {
        registerAppErrorHandling(scope);
        registerAuthRoutes(scope, {
          auth,
          limiter: createMemoryRateLimiter({ now: () => new Date() }),
          publicBaseUrl: APP_ORIGIN,
        });
      },
      { prefix: APP_API_PREFIX },
    );
    await app.listen({ port: 0, host: "127.0.0.1" });
    const stubPort = (app.server.address() as { port: number }).port;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<"GET" | "POST">("GET", "POST"),
          fc.constantFrom(...EXPOSED_PATHS),
          fc.array(fc.constantFrom(...TRICKS), { minLength: 0, maxLength: 5 }),
          fc.option(fc.constantFrom(...TARGETS), { nil: undefined }),
          async (method, start, tricks, target) => {
            const wildcard = `${start}${tricks.join("")}${target === undefined ? "" : `/${target}`}`;
            reached.length = 0;
            const answer = await rawRequest(stubPort, method, `${AUTH_BASE_PATH}/${wildcard}`, {
              body: method === "POST" ? {} : undefined,
            });
            for (const endpoint of reached) {
              assert.ok(EXPOSED_AUTH_ENDPOINTS.has(endpoint), `${method} ${wildcard} reached ${endpoint}`);
            }
            if (/%2e|%2f|%3f|%5c|\.\.|\/\//i.test(wildcard.split(/[?#]/)[0]!)) {
              assert.equal(reached.length, 0, `${method} ${wildcard} reached ${reached.join(", ")}`);
              assert.equal(answer.status, 404, `${method} ${wildcard}`);
            }
          },
        ),
        { numRuns: 300 },
      );
    } finally {
      await app.close();
    }
  });
});
