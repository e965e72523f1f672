import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import { systemClock } from "./clock.ts";
import { type Config, listenerUrl } from "./config.ts";
import { type Queryable, queryOne, sql } from "./db/database.ts";
import type { Mailer } from "./mail/mailer.ts";
import { inviteMember } from "./orgs/invitations.ts";
import { createOrganization, issueApiKey } from "./orgs/organizations.ts";

/** Who the first start invites as the demo organization's owner. */
export const DEMO_OWNER_EMAIL = "owner@demo.example";

/** The operator token this start accepts; a new one is kept and shown only once the start has succeeded. */
export interface AdminToken {
  token: string;
  /** Set for a token made by this start: stores it under DATA_DIR and prints it (once). */
  keepNew: (() => void) | null;
}

/**
 * The operator token: ADMIN_TOKEN, else the one stored under DATA_DIR, else a new one. A new token
 * is written and printed by `keepNew` after the start listens: a start that then fails (a port in
 * use, a database that refuses it) must not use up the one showing of a token nobody can use yet.
 * Each instance keeps its own file: on a shared PostgreSQL, instances without ADMIN_TOKEN would each
 * accept a different token, so such a start says to set one for all.
 */
export function resolveAdminToken(config: Config, print: (line: string) => void): AdminToken {
  const file = path.join(config.dataDir, "admin-token");
  if (config.adminToken) {
    if (existsSync(file)) print(`ADMIN_TOKEN is set: the operator token in ${file} is not accepted.`);
    return { token: config.adminToken, keepNew: null };
  }
  if (config.databaseUrl) {
    print(
      `ADMIN_TOKEN is not set: this instance's operator token is the one in ${file}; with several instances on one database, give them all the same ADMIN_TOKEN.`,
    );
  }
  if (existsSync(file)) return { token: readFileSync(file, "utf8").trim(), keepNew: null };
  const token = `adm_${randomBytes(24).toString("base64url")}`;
  const keepNew = () => {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    print(`Operator token (stored in ${file}; shown once): ${token}`);
  };
  return { token, keepNew };
}

/**
 * Where a person goes next, printed on a first start (a new operator token or the demo's seeding):
 * the app, the API reference, and the operator console on the listener that serves it.
 */
export function printAddresses(config: Config, print: (line: string) => void): void {
  const operatorBase = config.adminListener ? listenerUrl(config.adminListener) : config.publicBaseUrl;
  print(`The app:           ${config.publicBaseUrl}/app/`);
  print(`API reference:     ${config.publicBaseUrl}/docs`);
  print(`Operator console:  ${operatorBase}/app/operator (sign in with the operator token)`);
  print("");
}

/**
 * First start on an empty embedded database: a demo organization with a billing owner and one
 * unrestricted key, and a ready-to-paste curl. The key is printed this once and never again.
 * True when it seeded.
 */
export async function seedDemoOnFirstRun(
  db: Queryable,
  config: Config,
  logger: Logger,
  mailer: Mailer,
  print: (line: string) => void,
): Promise<boolean> {
  if (config.databaseUrl) return false;
  const existing = await queryOne<{ id: string }>(db, sql`SELECT id FROM organizations LIMIT 1`);
  if (existing) return false;
  const org = await createOrganization(db, { name: "Demo Contractor", billing_owner: true });
  const key = await issueApiKey(db, org.org_id, { name: "demo" }, new Date(), { demo: true });
  logger.info({ orgId: org.org_id }, "created demo organization");
  print("");
  print(`Demo organization "${org.org_name}" created (${org.org_id}). Its API key, shown only now:`);
  print(`  ${key.key}`);
  print("Try it:");
  print(`  curl -s -H 'Authorization: Bearer ${key.key}' ${config.publicBaseUrl}/api/v1/me`);
  const invitation = await inviteMember(
    { db, clock: systemClock, mailer, publicBaseUrl: config.publicBaseUrl },
    { orgId: org.org_id, email: DEMO_OWNER_EMAIL, role: "owner", inviterId: null },
  );
  print(`Set up the app's owner (${DEMO_OWNER_EMAIL}) within 7 days at:`);
  print(`  ${invitation.invite_url}`);
  print("");
  return true;
}
