import { Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import {
  type AddressCheckBeforePrint,
  DEFAULT_VERIFICATION_LEVEL,
  VERIFICATION_LEVELS,
  type VerificationLevel,
} from "../domain/deliverable-address.ts";
import { notFound } from "../errors.ts";
import { capStillReached, retryCappedPieces } from "./spend-caps.ts";

/**
 * A home gets at most one card per this many days across all of an org's automations, unless the
 * org sets its own (0 turns the cap off). The one setting every rule about "mailed recently"
 * reads (the pipeline's frequency cap and the neighbour audience's exclusion window alike):
 * read it with `frequencyCapDays`.
 */
export const DEFAULT_FREQUENCY_CAP_DAYS = 30;

/** The level as the app and operator APIs take and answer it (the same three as VERIFICATION_LEVELS). */
export const AddressVerificationLevel = Type.Union(
  [Type.Literal("strict"), Type.Literal("normal"), Type.Literal("relaxed")],
  {
    description:
      "How strictly addresses are checked before print: strict (the ZIP, state and city must all agree; with Lob, only `deliverable`), normal (default: a house number, a real ZIP in the state written, a city that is not another town of the ZIP's state; with Lob, a wrong or missing unit stops the card), relaxed (a real ZIP in its state; with Lob, only `undeliverable` stops the card).",
  },
);

/** The organization's hold window for mailings, as both APIs take and answer it. */
export const MailingHoldMinutes = Type.Integer({
  minimum: 0,
  maximum: 30 * 24 * 60,
  description:
    "Minutes the cards of a mailing no automation sends (reactivation) wait in `held` before print, and can be cancelled; 0: none.",
});

export interface OrgMailSafety {
  org_id: string;
  frequency_cap_days: number;
  monthly_card_cap: number | null;
  monthly_spend_cap_cents: number | null;
  /** How strictly addresses are checked before print (strict, normal, relaxed). */
  address_verification: VerificationLevel;
  /** Minutes the cards of a mailing (no automation: reactivation) wait before print; 0: none. */
  mailing_hold_minutes: number;
}

export type OrgMailSafetyPatch = Partial<Omit<OrgMailSafety, "org_id">>;

export interface AutomationMailSafety {
  automation_id: string;
  org_id: string;
  hold_minutes: number;
  approval_required: boolean;
  auto_approve_after: number | null;
  approved_count: number;
  monthly_card_cap: number | null;
  monthly_spend_cap_cents: number | null;
  /** Pieces of the automation are held because a monthly cap is reached. */
  paused_by_cap: boolean;
}

export type AutomationMailSafetyPatch = Partial<
  Pick<
    AutomationMailSafety,
    | "hold_minutes"
    | "approval_required"
    | "auto_approve_after"
    | "monthly_card_cap"
    | "monthly_spend_cap_cents"
  >
>;

/** The org's frequency cap in days (0: off). */
export async function frequencyCapDays(db: Queryable, orgId: string): Promise<number> {
  const row = await queryOne<{ days: number }>(
    db,
    sql`SELECT frequency_cap_days AS days FROM org_mail_safety WHERE org_id = ${orgId}::uuid`,
  );
  return row?.days ?? DEFAULT_FREQUENCY_CAP_DAYS;
}

/** The organization's check before print, as the pipeline will run it on a card queued now. */
export async function addressCheckBeforePrint(
  db: Queryable,
  verifier: "offline" | "lob",
  orgId: string,
): Promise<AddressCheckBeforePrint> {
  if (verifier === "lob") return { verifier: "lob" };
  const level = verificationLevelOrDefault((await getOrgMailSafety(db, orgId)).address_verification);
  return { verifier: "offline", level };
}

/** A stored verification level, or the default for none (or one this version does not know). */
export function verificationLevelOrDefault(stored: string | null): VerificationLevel {
  const level = stored as VerificationLevel | null;
  return level && VERIFICATION_LEVELS.includes(level) ? level : DEFAULT_VERIFICATION_LEVEL;
}

export async function getOrgMailSafety(db: Queryable, orgId: string): Promise<OrgMailSafety> {
  const row = await queryOne<OrgMailSafety>(
    db,
    sql`SELECT o.id AS org_id, COALESCE(s.frequency_cap_days, ${DEFAULT_FREQUENCY_CAP_DAYS}::int) AS frequency_cap_days,
               s.monthly_card_cap, s.monthly_spend_cap_cents,
               COALESCE(s.address_verification, ${DEFAULT_VERIFICATION_LEVEL}) AS address_verification,
               COALESCE(s.mailing_hold_minutes, 0) AS mailing_hold_minutes
        FROM organizations o LEFT JOIN org_mail_safety s ON s.org_id = o.id
        WHERE o.id = ${orgId}::uuid`,
  );
  if (!row) throw notFound("organization not found");
  return row;
}

/**
 * The upsert's SET list: a column the patch names takes the new value, any other keeps the stored
 * one, so two people changing different settings at once both keep their change (a merged
 * read-then-write put back the other's stale values, e.g. a cap cleared silently).
 */
function patched(patch: object, table: string, columns: readonly string[]) {
  return sql.join(
    columns.map((column) =>
      sql.raw(names(patch, column) ? `${column} = EXCLUDED.${column}` : `${column} = ${table}.${column}`),
    ),
    sql`, `,
  );
}

/** The patch sets this field (null included: it clears a cap). */
const names = (patch: object, field: string) => (patch as Record<string, unknown>)[field] !== undefined;
const changesCaps = (patch: object) =>
  names(patch, "monthly_card_cap") || names(patch, "monthly_spend_cap_cents");

/** Applies the fields present in `patch` (null clears a cap). */
export async function updateOrgMailSafety(
  db: Queryable,
  orgId: string,
  patch: OrgMailSafetyPatch,
  now: Date,
): Promise<OrgMailSafety> {
  const next = { ...(await getOrgMailSafety(db, orgId)), ...patch };
  await db.execute(sql`
    INSERT INTO org_mail_safety (org_id, frequency_cap_days, monthly_card_cap, monthly_spend_cap_cents,
      address_verification, mailing_hold_minutes, updated_at)
    VALUES (${orgId}::uuid, ${next.frequency_cap_days}::int, ${next.monthly_card_cap}::int,
            ${next.monthly_spend_cap_cents}::int, ${next.address_verification}, ${next.mailing_hold_minutes}::int,
            ${now.toISOString()}::timestamptz)
    ON CONFLICT (org_id) DO UPDATE SET
      ${patched(patch, "org_mail_safety", ["frequency_cap_days", "monthly_card_cap", "monthly_spend_cap_cents", "address_verification", "mailing_hold_minutes"])},
      updated_at = EXCLUDED.updated_at`);
  // A raised cap releases the pieces it held (a lowered one finds them capped again).
  if (changesCaps(patch)) await retryCappedPieces(db, { orgId }, now);
  return getOrgMailSafety(db, orgId);
}

/** An automation's settings, by its id alone (the operator API's view); 404 when it does not exist. */
export async function getAutomationMailSafety(
  db: Queryable,
  automationId: string,
  now: Date,
): Promise<AutomationMailSafety> {
  const row = await queryOne<AutomationMailSafety>(
    db,
    sql`SELECT a.id AS automation_id, a.org_id, COALESCE(s.hold_minutes, 0) AS hold_minutes,
               COALESCE(s.approval_required, false) AS approval_required, s.auto_approve_after,
               COALESCE(s.approved_count, 0) AS approved_count, s.monthly_card_cap, s.monthly_spend_cap_cents,
               EXISTS (SELECT 1 FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
                       WHERE p.org_id = a.org_id AND p.status = 'capped' AND c.automation_id = a.id) AS paused_by_cap
        FROM automations a LEFT JOIN automation_mail_safety s ON s.org_id = a.org_id AND s.automation_id = a.id
        WHERE a.id = ${automationId}::uuid`,
  );
  if (!row) throw notFound("automation not found");
  // Capped cards wait only while a cap is still reached: a raised cap releases them by their jobs.
  if (!row.paused_by_cap) return row;
  const scope = { orgId: row.org_id, automationId };
  return { ...row, paused_by_cap: await capStillReached(db, scope, now) };
}

/**
 * A threshold set at or below the cards already approved is reached: the automation is automatic
 * now, as it would have become at its next approval (cards already waiting still wait for theirs).
 */
async function switchIfThresholdReached(db: Queryable, orgId: string, automationId: string) {
  await db.execute(sql`
    UPDATE automation_mail_safety SET approval_required = false
    WHERE org_id = ${orgId}::uuid AND automation_id = ${automationId}::uuid AND approval_required
      AND auto_approve_after IS NOT NULL AND approved_count >= auto_approve_after`);
}

export async function updateAutomationMailSafety(
  db: Queryable,
  automationId: string,
  patch: AutomationMailSafetyPatch,
  now: Date,
): Promise<AutomationMailSafety> {
  const current = await getAutomationMailSafety(db, automationId, now);
  const next = { ...current, ...patch };
  await db.execute(sql`
    INSERT INTO automation_mail_safety (org_id, automation_id, hold_minutes, approval_required, auto_approve_after,
      monthly_card_cap, monthly_spend_cap_cents, updated_at)
    VALUES (${current.org_id}::uuid, ${automationId}::uuid, ${next.hold_minutes}::int, ${next.approval_required},
      ${next.auto_approve_after}::int, ${next.monthly_card_cap}::int, ${next.monthly_spend_cap_cents}::int,
      ${now.toISOString()}::timestamptz)
    ON CONFLICT (org_id, automation_id) DO UPDATE SET
      ${patched(patch, "automation_mail_safety", ["hold_minutes", "approval_required", "auto_approve_after", "monthly_card_cap", "monthly_spend_cap_cents"])},
      approved_count = ${
        names(patch, "approval_required")
          ? sql`CASE WHEN EXCLUDED.approval_required AND NOT automation_mail_safety.approval_required
                     THEN 0 ELSE automation_mail_safety.approved_count END`
          : sql`automation_mail_safety.approved_count`
      },
      updated_at = EXCLUDED.updated_at`);
  if (names(patch, "auto_approve_after")) await switchIfThresholdReached(db, current.org_id, automationId);
  if (changesCaps(patch)) await retryCappedPieces(db, { orgId: current.org_id, automationId }, now);
  return getAutomationMailSafety(db, automationId, now);
}
