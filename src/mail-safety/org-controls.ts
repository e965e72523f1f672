/**
 * The mail safety controls as the contractor's app uses them: the operator's services
 * (settings.ts, piece-controls.ts), each call first confined to one organization, so another
 * organization's piece or automation is "not found" and never touched.
 */
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { AppError, notFound, refusedFields } from "../errors.ts";
import { cardVersionOf } from "../pieces/card-template-sql.ts";
import { approvePieces, cancelPiece, cancelWaitingPieces } from "./piece-controls.ts";
import {
  type AutomationMailSafety,
  type AutomationMailSafetyPatch,
  getAutomationMailSafety,
  getOrgMailSafety,
  type OrgMailSafety,
  updateAutomationMailSafety,
} from "./settings.ts";
import { monthOf, ORG_SCOPE } from "./spend-caps.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function assertOrgAutomation(db: Queryable, orgId: string, automationId: string) {
  const row = UUID.test(automationId)
    ? await queryOne<{ id: string }>(
        db,
        sql`SELECT id FROM automations WHERE org_id = ${orgId}::uuid AND id = ${automationId}::uuid`,
      )
    : undefined;
  if (!row) throw notFound("automation not found");
}

/** The ids among `pieceIds` that are pieces of the organization. */
async function orgPieceIds(db: Queryable, orgId: string, pieceIds: string[]): Promise<string[]> {
  const ids = [...new Set(pieceIds.filter((id) => UUID.test(id)))];
  if (ids.length === 0) return [];
  const rows = await queryRows<{ id: string }>(
    db,
    sql`SELECT id FROM mail_pieces WHERE org_id = ${orgId}::uuid AND id = ANY(${sql.param(ids)}::uuid[])`,
  );
  return rows.map((row) => row.id);
}

export async function getOrgAutomationSafety(
  db: Queryable,
  orgId: string,
  automationId: string,
  now: Date,
): Promise<AutomationMailSafety> {
  await assertOrgAutomation(db, orgId, automationId);
  return getAutomationMailSafety(db, automationId, now);
}

/**
 * The fields of `patch` that would let the automation spend more or mail with less review:
 * approval switched off (or set to switch itself off sooner), a shorter hold window, a cap
 * raised or removed. Making it safer (approval on, a longer hold, a lower or new cap) is not.
 */
export function loosenedSafetyFields(
  current: AutomationMailSafety,
  patch: AutomationMailSafetyPatch,
): string[] {
  const loosened: string[] = [];
  if (patch.approval_required === false && current.approval_required) loosened.push("approval_required");
  const autoApprove = patch.auto_approve_after;
  if (
    autoApprove !== undefined &&
    autoApprove !== null &&
    (current.auto_approve_after === null || autoApprove < current.auto_approve_after)
  ) {
    loosened.push("auto_approve_after");
  }
  if (patch.hold_minutes !== undefined && patch.hold_minutes < current.hold_minutes)
    loosened.push("hold_minutes");
  for (const cap of ["monthly_card_cap", "monthly_spend_cap_cents"] as const) {
    const next = patch[cap];
    const now = current[cap];
    if (next !== undefined && now !== null && (next === null || next > now)) loosened.push(cap);
  }
  return loosened;
}

/**
 * Whether a new automation asks for approval of each card: as an owner chooses; always for a
 * member's, until an owner switches it off (else a member could mail what an owner's approval
 * setting holds back, by making a copy of the automation).
 */
export const newAutomationAsksApproval = (actor: { isOwner: boolean }, requested: boolean | undefined) =>
  actor.isOwner ? requested === true : true;

/**
 * Mailing a registered customer is an owner's decision: a member's create or edit that switches an
 * automation's customer suppression off (from what it was, or from the kind's default) is a 403.
 */
export function assertMayMailCustomers(
  actor: { isOwner: boolean },
  suppressedBefore: boolean,
  suppressAfter: boolean | undefined,
): void {
  if (actor.isOwner || !suppressedBefore || suppressAfter !== false) return;
  throw new AppError(
    403,
    "forbidden",
    "Only an owner can let an automation mail existing customers (suppress_customers).",
  );
}

/** What a member may not do to a setting, in words, by the field the patch names. */
const LOOSENING_IN_WORDS: Record<string, string> = {
  approval_required: "Only an owner can switch off approval of each card.",
  auto_approve_after: "Only an owner can let cards be approved on their own, or sooner.",
  hold_minutes: "Only an owner can shorten the hold window.",
  monthly_card_cap: "Only an owner can raise or remove a monthly cap.",
  monthly_spend_cap_cents: "Only an owner can raise or remove a monthly cap.",
};

/**
 * A member's loosening refused (403): the message says each refusal in words (the app shows it as
 * is, so no field names), `details.fields` each field's, for the builder to put on its inputs.
 */
function onlyAnOwnerMayLoosen(loosened: string[]): AppError {
  const fields = Object.fromEntries(loosened.map((field) => [field, LOOSENING_IN_WORDS[field]!]));
  return refusedFields(403, "forbidden", [...new Set(Object.values(fields))].join(" "), fields);
}

/**
 * Changes an automation's mail safety. Only an owner may loosen it (issue 37: a member switched
 * an automation's approval off); a member's attempt is a 403 naming the fields, and changes nothing.
 */
export async function updateOrgAutomationSafety(
  db: Queryable,
  orgId: string,
  automationId: string,
  patch: AutomationMailSafetyPatch,
  now: Date,
  actor: { isOwner: boolean },
): Promise<AutomationMailSafety> {
  await assertOrgAutomation(db, orgId, automationId);
  if (!actor.isOwner) {
    const loosened = loosenedSafetyFields(await getAutomationMailSafety(db, automationId, now), patch);
    if (loosened.length > 0) throw onlyAnOwnerMayLoosen(loosened);
  }
  return updateAutomationMailSafety(db, automationId, patch, now);
}

/** Cancels one piece of the organization that waits before print (409 `not_cancellable` otherwise). */
export async function cancelOrgPiece(
  db: Queryable,
  orgId: string,
  pieceId: string,
  actor: string,
  now: Date,
) {
  if ((await orgPieceIds(db, orgId, [pieceId])).length === 0) throw notFound("piece not found");
  return cancelPiece(db, pieceId, actor, now);
}

/** Cancels those of the given pieces that still wait before print; answers the ones cancelled. */
export async function cancelOrgPieces(
  db: Queryable,
  orgId: string,
  pieceIds: string[],
  actor: string,
  now: Date,
): Promise<string[]> {
  const cancelled: string[] = [];
  for (const id of await orgPieceIds(db, orgId, pieceIds)) {
    try {
      await cancelPiece(db, id, actor, now);
      cancelled.push(id);
    } catch (error) {
      if (!(error instanceof AppError && error.code === "not_cancellable")) throw error;
    }
  }
  return cancelled;
}

/** Cancels every piece of one of the organization's automations that waits before print. */
export async function cancelOrgAutomationWaiting(
  db: Queryable,
  orgId: string,
  automationId: string,
  actor: string,
  now: Date,
): Promise<string[]> {
  await assertOrgAutomation(db, orgId, automationId);
  return cancelWaitingPieces(db, automationId, actor, now);
}

/** Approves those of the given pieces that await approval; answers the ones approved. */
/**
 * Approves the org's chosen pieces that await approval. With `seenVersions` (the card version each
 * was shown with), a piece whose card changed since is not approved: it is answered in `changed`,
 * to be looked at again.
 */
export async function approveOrgPieces(
  db: Queryable,
  orgId: string,
  pieceIds: string[],
  actor: string,
  now: Date,
  seenVersions?: Record<string, string>,
): Promise<{ approved: string[]; changed: string[] }> {
  const own = await orgPieceIds(db, orgId, pieceIds);
  if (own.length === 0) return { approved: [], changed: [] };
  const seen =
    seenVersions &&
    Object.fromEntries(Object.entries(seenVersions).map(([id, version]) => [id.toLowerCase(), version]));
  const approved = await approvePieces(db, { pieceIds: own, seenVersions: seen }, actor, now);
  const unapproved = own.filter((id) => !approved.includes(id) && seen?.[id] !== undefined);
  return { approved, changed: await stillAwaitingApproval(db, orgId, unapproved) };
}

async function stillAwaitingApproval(db: Queryable, orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await queryRows<{ id: string }>(
    db,
    sql`SELECT id FROM mail_pieces WHERE org_id = ${orgId}::uuid AND id = ANY(${sql.param(ids)}::uuid[])
          AND status = 'awaiting_approval'`,
  );
  return rows.map((row) => row.id);
}

/** The card version (what an approver is shown) of each of the org's given pieces. */
export async function cardVersionsOf(
  db: Queryable,
  orgId: string,
  ids: string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<{ id: string; version: string }>(
    db,
    sql`SELECT p.id, ${cardVersionOf("p")} AS version
        FROM mail_pieces p JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
        LEFT JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id
        WHERE p.org_id = ${orgId}::uuid AND p.id = ANY(${sql.param(ids)}::uuid[])`,
  );
  return new Map(rows.map((row) => [row.id, row.version]));
}

/** The organization's automations that are on and whose new cards wait for approval before print, by name. */
export function automationsAskingApproval(
  db: Queryable,
  orgId: string,
): Promise<{ automation_id: string; name: string }[]> {
  return queryRows(
    db,
    sql`SELECT a.id AS automation_id, a.name
        FROM automations a JOIN automation_mail_safety s ON s.org_id = a.org_id AND s.automation_id = a.id
        WHERE a.org_id = ${orgId}::uuid AND a.enabled AND s.approval_required
        ORDER BY a.name, a.id`,
  );
}

export async function countAwaitingApproval(db: Queryable, orgId: string): Promise<number> {
  const row = await queryOne<{ count: number }>(
    db,
    sql`SELECT count(*)::int AS count FROM mail_pieces WHERE org_id = ${orgId}::uuid AND status = 'awaiting_approval'`,
  );
  return row?.count ?? 0;
}

export interface CapUse {
  monthly_card_cap: number | null;
  monthly_spend_cap_cents: number | null;
  cards: number;
  cents: number;
  /** How many more cards this month's caps let through (null: no cap binds), as the claim judges them. */
  cards_left: number | null;
}

/**
 * The cards that still fit under a counter's caps at `cost` a card, by the claim's own test
 * (spend-caps.ts fitsUnderCap: one more card fits while cards + 1 <= cap and cents + cost <= cap).
 */
export function cardsLeft(use: Omit<CapUse, "cards_left">, cost: number): number | null {
  const left: number[] = [];
  if (use.monthly_card_cap !== null) left.push(Math.max(0, use.monthly_card_cap - use.cards));
  if (use.monthly_spend_cap_cents !== null) {
    const room = use.monthly_spend_cap_cents - use.cents;
    if (cost > 0) left.push(Math.max(0, Math.floor(room / cost)));
    else if (room < 0) left.push(0);
  }
  return left.length > 0 ? Math.min(...left) : null;
}

export interface CapUsage {
  /** The UTC month counted, YYYY-MM-01. */
  month: string;
  frequency_cap_days: number;
  address_verification: OrgMailSafety["address_verification"];
  mailing_hold_minutes: number;
  organization: CapUse;
  automations: (CapUse & { automation_id: string; name: string; paused_by_cap: boolean })[];
  /** Cards of mailings (past customers), which have no automation: counted by the organization's caps only. */
  mailings: { cards: number; cents: number };
}

const withCardsLeft = (use: Omit<CapUse, "cards_left">, cost: number): CapUse => ({
  ...use,
  cards_left: cardsLeft(use, cost),
});

/**
 * This month's cards and money handed to print (the counters the caps claim from) against the
 * organization's caps and those of each automation that has one or used any.
 */
export async function capUsageThisMonth(db: Queryable, orgId: string, now: Date): Promise<CapUsage> {
  const month = monthOf(now);
  const settings: OrgMailSafety = await getOrgMailSafety(db, orgId);
  // The cost the next claim counts (spend-caps.ts CAP_COLUMNS): 0 without one.
  const profile = await queryOne<{ cost: number | null }>(
    db,
    sql`SELECT cost_per_card_cents AS cost FROM organization_profiles WHERE org_id = ${orgId}::uuid`,
  );
  const cost = profile?.cost ?? 0;
  const usage = await queryRows<{ automation_id: string; cards: number; cents: number | string }>(
    db,
    sql`SELECT automation_id, cards, cents FROM mail_cap_usage WHERE org_id = ${orgId}::uuid AND month = ${month}::date`,
  );
  const used = new Map(
    usage.map((row) => [row.automation_id, { cards: row.cards, cents: Number(row.cents) }]),
  );
  const automations = await queryRows<{ id: string; name: string; capped: boolean }>(
    db,
    sql`SELECT a.id, a.name,
               (s.monthly_card_cap IS NOT NULL OR s.monthly_spend_cap_cents IS NOT NULL) AS capped
        FROM automations a
        LEFT JOIN automation_mail_safety s ON s.org_id = a.org_id AND s.automation_id = a.id
        WHERE a.org_id = ${orgId}::uuid ORDER BY a.name, a.id`,
  );
  const shown = automations.filter((automation) => automation.capped || used.has(automation.id));
  const organization = used.get(ORG_SCOPE) ?? { cards: 0, cents: 0 };
  // Every card counts at the organization; an automation's counts at its automation too.
  const byAutomations = usage.filter((row) => row.automation_id !== ORG_SCOPE);
  const mailings = {
    cards: organization.cards - byAutomations.reduce((sum, row) => sum + row.cards, 0),
    cents: organization.cents - byAutomations.reduce((sum, row) => sum + Number(row.cents), 0),
  };
  return {
    month,
    frequency_cap_days: settings.frequency_cap_days,
    address_verification: settings.address_verification,
    mailing_hold_minutes: settings.mailing_hold_minutes,
    organization: withCardsLeft(
      {
        monthly_card_cap: settings.monthly_card_cap,
        monthly_spend_cap_cents: settings.monthly_spend_cap_cents,
        ...organization,
      },
      cost,
    ),
    mailings,
    automations: await Promise.all(
      shown.map(async (automation) => {
        const safety = await getAutomationMailSafety(db, automation.id, now);
        return {
          automation_id: automation.id,
          name: automation.name,
          paused_by_cap: safety.paused_by_cap,
          ...withCardsLeft(
            {
              monthly_card_cap: safety.monthly_card_cap,
              monthly_spend_cap_cents: safety.monthly_spend_cap_cents,
              ...(used.get(automation.id) ?? { cards: 0, cents: 0 }),
            },
            cost,
          ),
        };
      }),
    ),
  };
}
