#!/usr/bin/env node
// Fails when a file writes (INSERT INTO / UPDATE / DELETE FROM in SQL text, or drizzle's
// .insert/.update/.delete of a table object) a table owned by another folder of src/. Each table
// has one owner (docs/architecture.md); other modules call the owner's functions, passing their
// transaction when the write belongs to it. Part of `npm run lint`.
// Usage: node scripts/check-table-owners.mjs [--report] (--report prints every writer of every table).
import { readFileSync } from "node:fs";
import path from "node:path";
import { sourceFiles } from "./source-files.mjs";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const SRC = path.join(ROOT, "src");

/** table → the folder of src/ whose files may write it. */
export const OWNERS = {
  // infrastructure
  schema_migrations: "db",
  platform_settings: "db", // the deployment's key/value store (db/platform-settings.ts)
  jobs: "jobs",
  geocode_cache: "geo",
  // domains
  connections: "trigger",
  event_samples: "trigger",
  event_sample_cursors: "trigger",
  webhook_log: "trigger",
  automations: "automations",
  campaigns: "pieces",
  mail_pieces: "pieces",
  piece_images: "pieces",
  do_not_mail: "mail-safety",
  org_mail_safety: "mail-safety",
  automation_mail_safety: "mail-safety",
  mail_cap_usage: "mail-safety",
  reference_addresses: "neighbours",
  reference_address_uploads: "neighbours",
  reference_address_zips: "neighbours",
  neighbour_campaigns: "neighbours",
  leads: "leads",
  lead_fields: "leads",
  landing_visits: "leads",
  lead_alert_preferences: "leads",
  lead_alert_sends: "leads",
  subscriptions: "webhooks",
  deliveries: "webhooks",
  conversions: "attribution",
  holdout_conversions: "attribution",
  customers: "customers",
  customer_uploads: "customers",
  imports: "imports",
  import_rows: "imports",
  organizations: "orgs",
  organization_profiles: "orgs",
  api_keys: "orgs",
  org_invitations: "orgs",
  reactivation_mailings: "reactivation",
  hubspot_connections: "hubspot",
  hubspot_oauth_states: "hubspot",
  hubspot_events: "hubspot",
  monthly_mail_figures: "reports", // kept by triggers on pieces, leads and conversions (migration 0334)
  piece_status_counts: "pieces", // kept by triggers on mail_pieces (migration 0338); the operator's porchlight_pieces reads it
  // the contractor app's sign-in (Better Auth's tables)
  users: "app-api",
  user_sessions: "app-api",
  org_members: "app-api",
  auth_verifications: "app-api", // Better Auth's; the app ends a user's open reset links (password-reset-links.ts)
};

/**
 * Writes outside the owner that are known and not yet moved: `file: [tables]`, each with why.
 * An entry that no longer matches a write fails too, so the list only shrinks.
 */
const PENDING = {
  // Empty: every table is written by its owner (issue 26). Hand-tuned statements that write
  // several tables at once take each INSERT's text from its owner (trigger/trigger-store.ts).
};

/** drizzle table objects by their TypeScript name: `export const mailPieces = pgTable("mail_pieces"`. */
const drizzleTables = new Map();
for (const file of sourceFiles(path.join(SRC, "db"))) {
  for (const [, name, table] of readFileSync(file, "utf8").matchAll(
    /export const (\w+) = pgTable\(\s*"(\w+)"/g,
  ))
    drizzleTables.set(name, table);
}

const WRITE_SQL = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_][a-z0-9_]*)/g;
const WRITE_DRIZZLE = /\.(?:insert|update|delete)\(\s*(\w+)\s*\)/g;

function writesOf(text) {
  const tables = new Set();
  for (const [, table] of text.matchAll(WRITE_SQL)) tables.add(table);
  for (const [, name] of text.matchAll(WRITE_DRIZZLE))
    if (drizzleTables.has(name)) tables.add(drizzleTables.get(name));
  return tables;
}

/**
 * Data migrations (src/db/data-migration.ts) are history like the SQL files of migrations/, which
 * write any table: run once at their version, inside migrate()'s transaction, never edited after.
 * data-migration-rekeying.ts is the re-keying those that move address keys share.
 */
const DATA_MIGRATION = /^db\/data-migration-(?:\d{4}-[a-z0-9-]+|rekeying)\.ts$/;

const writers = new Map();
const problems = [];
for (const file of sourceFiles(SRC)) {
  const relative = path.relative(SRC, file);
  const folder = relative.split(path.sep)[0];
  if (DATA_MIGRATION.test(relative.split(path.sep).join("/"))) continue;
  for (const table of writesOf(readFileSync(file, "utf8"))) {
    if (!writers.has(table)) writers.set(table, new Set());
    writers.get(table).add(relative);
    const owner = OWNERS[table];
    if (owner === undefined) problems.push(`${relative} writes ${table}, which has no owner in OWNERS`);
    else if (owner !== folder && !PENDING[relative]?.includes(table))
      problems.push(`${relative} writes ${table}, owned by ${owner}/`);
  }
}
for (const [file, tables] of Object.entries(PENDING))
  for (const table of tables)
    if (!writers.get(table)?.has(file))
      problems.push(`PENDING lists ${file} for ${table}, which it no longer writes`);

if (process.argv.includes("--report"))
  for (const [table, files] of [...writers].sort()) console.log(`${table}: ${[...files].sort().join(", ")}`);
for (const problem of problems) console.log(problem);
if (problems.length === 0) console.log("every table is written by its owner only");
process.exit(problems.length === 0 ? 0 : 1);
