import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Clock } from "../../src/clock.ts";
import type { Config } from "../../src/config.ts";
import { sql } from "../../src/db/database.ts";
import { admin } from "../helpers/api.ts";
import { createTestContext, type TestContext } from "../helpers/harness.ts";

/** testConfig's PUBLIC_BASE_URL: the app's own origin. */
export const APP_ORIGIN = "http://porchlight.test";
export const PASSWORD = "correct horse battery";

export interface AppResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
  text: string;
}

/** A fresh app whose mail outbox lives in a temporary data directory. */
export async function createAppTestContext(
  options: { clock?: Clock; config?: Partial<Config>; memoryLimiter?: boolean } = {},
): Promise<TestContext & { dataDir: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-app-"));
  const ctx = await createTestContext({ ...options, config: { dataDir, ...options.config } });
  return { ...ctx, dataDir };
}

/**
 * A browser of the app: keeps its cookies, and sends the app's Origin on state-changing requests
 * as a browser on the app's pages does.
 */
export class AppBrowser {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly ctx: TestContext,
    private readonly ip = "127.0.0.1",
  ) {}

  async request(
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    url: string,
    options: { body?: unknown; headers?: Record<string, string>; payload?: Buffer | string } = {},
  ): Promise<AppResponse> {
    const headers: Record<string, string> = {};
    if (method !== "GET") headers.origin = APP_ORIGIN;
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([n, v]) => `${n}=${v}`).join("; ");
    let payload: Buffer | string | undefined = options.payload;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    Object.assign(headers, options.headers);
    for (const [name, value] of Object.entries(headers)) if (value === "") delete headers[name];
    const response = await this.ctx.app.inject({ method, url, headers, payload, remoteAddress: this.ip });
    const setCookies = response.headers["set-cookie"];
    for (const line of Array.isArray(setCookies) ? setCookies : setCookies ? [setCookies] : []) {
      const [pair, ...attributes] = line.split(";");
      const [name, ...rest] = pair!.split("=");
      const value = rest.join("=");
      const expired = attributes.some((a) => /max-age=0\b/i.test(a.trim())) || value === "";
      if (expired) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value);
    }
    let body: unknown;
    try {
      body = response.body ? JSON.parse(response.body) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body, text: response.body };
  }

  signIn(email: string, password = PASSWORD) {
    return this.request("POST", "/app/api/v1/auth/sign-in/email", { body: { email, password } });
  }
}

export interface SignedInUser {
  browser: AppBrowser;
  orgId: string;
  email: string;
  userId: string;
}

export async function createOrg(ctx: TestContext, name = "Acme Roofing"): Promise<string> {
  const created = await admin(ctx, "POST", "/orgs", { name });
  if (created.status !== 201) throw new Error(`org not created: ${created.status} ${created.text}`);
  return created.body.org_id;
}

/** The secret token in an invitation link (the operator API's invite_url, or a mailed link). */
export const tokenOfInviteUrl = (inviteUrl: string) =>
  decodeURIComponent(new URL(inviteUrl).pathname.split("/").at(-1)!);

/**
 * Invites `email` through the operator API and accepts in a fresh browser: signed in. An email that
 * already has an account signs in (with PASSWORD) and joins.
 */
export async function inviteAndAccept(
  ctx: TestContext,
  orgId: string,
  email: string,
  role: "owner" | "member",
  name = "Pat Owner",
): Promise<SignedInUser> {
  const invited = await admin(ctx, "POST", `/orgs/${orgId}/invitations`, { email, role });
  if (invited.status !== 201) throw new Error(`not invited: ${invited.status} ${invited.text}`);
  await keepOpenOnSystemClock(ctx, invited.body.invitation_id);
  const browser = new AppBrowser(ctx);
  const token = encodeURIComponent(tokenOfInviteUrl(invited.body.invite_url));
  let accepted = await browser.request("POST", `/app/api/v1/invitations/${token}/accept`, {
    body: { name, password: PASSWORD },
  });
  if (accepted.status === 409 && accepted.body?.error?.code === "sign_in_to_join") {
    const signedIn = await browser.signIn(email);
    if (signedIn.status !== 200) throw new Error(`not signed in: ${signedIn.status} ${signedIn.text}`);
    accepted = await browser.request("POST", `/app/api/v1/invitations/${token}/join`, { body: {} });
  }
  if (accepted.status !== 200) throw new Error(`not accepted: ${accepted.status} ${accepted.text}`);
  return { browser, orgId, email, userId: accepted.body.user.id };
}

/**
 * Better Auth's accept checks an invitation's expiry on the system clock, the service on its own
 * (`ctx.clock`): a suite on a fixed clock more than the 7 days of an invitation before today would
 * find every invitation expired there. The invitation stays open a week from today as well.
 */
async function keepOpenOnSystemClock(ctx: TestContext, invitationId: string): Promise<void> {
  const weekFromToday = new Date(Date.now() + 7 * 86_400_000).toISOString();
  await ctx.database.db.execute(
    sql`UPDATE org_invitations SET expires_at = GREATEST(expires_at, ${weekFromToday}::timestamptz)
        WHERE id = ${invitationId}`,
  );
}

/** A new organization with a signed-in owner. */
export async function ownerOfNewOrg(
  ctx: TestContext,
  email = `owner-${Math.random().toString(36).slice(2)}@example.com`,
) {
  const orgId = await createOrg(ctx);
  return inviteAndAccept(ctx, orgId, email, "owner");
}

/**
 * Polls until `find` answers something, for at most 5 s: a password reset's mail is sent after
 * the answer (so the answer's timing says nothing about the account), so a test waits for it.
 */
export async function eventually<T>(find: () => T | undefined): Promise<T> {
  for (let waited = 0; waited < 5000; waited += 25) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("not there within 5 s");
}

/** A mail's text with quoted-printable soft line breaks folded back, so a long link reads whole. */
export const unfold = (raw: string) => raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");

/**
 * A raw email as a person reads it: Q-encoded header words joined and decoded, the quoted-printable
 * body decoded, folded header lines unfolded.
 */
export const readableEml = (raw: string) =>
  raw
    .replace(/\?=\s+=\?UTF-8\?Q\?/g, "")
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/g, (_, words: string) => words.replace(/_/g, " "))
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\r?\n[ \t]/g, " ");

/** The texts of the mails in DATA_DIR/mail-outbox, oldest first. */
export function outboxMails(dataDir: string): string[] {
  const outbox = path.join(dataDir, "mail-outbox");
  if (!existsSync(outbox)) return [];
  return readdirSync(outbox)
    .sort()
    .map((file) => readFileSync(path.join(outbox, file), "utf8"));
}

/**
 * Waits, if need be, until at least `seconds` remain in the current fixed window of `windowSeconds`
 * on the real clock: a test that counts up to a limit and expects the next request refused fails if
 * the window turns in between (the per-account limits turn on the quarter hour).
 */
export async function clearOfWindowEdge(windowSeconds: number, seconds: number): Promise<void> {
  const left = windowSeconds * 1000 - (Date.now() % (windowSeconds * 1000));
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
