// A lead the contractor marked won in the app (Leads → a lead → Job won): a won deal at the lead's
// home, recorded as a CRM's report of one would be (conversions.ts), so a contractor without a CRM
// connection still sees in Revenue what the cards earned.
import { type Static, Type } from "@fastify/type-provider-typebox";
import { removeCustomerOfTakenBackWin } from "../customers/customers.ts";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { namesAPlace, normalizeAddress } from "../domain/address.ts";
import { isUuid } from "../domain/uuid.ts";
import { AppError, causeChain, invalidFields, invalidPayload, notFound } from "../errors.ts";
import {
  claimCloseDay,
  clearWonJob,
  leadToMarkWon,
  markedInApp,
  recordWonAmount,
  releaseCloseDay,
  type WonLeadRow,
  wonDealKeyOf,
} from "../leads/won-job.ts";
import { type ConversionFields, recordConversion } from "./conversions.ts";
import type { AttributionDeps } from "./deps.ts";
import { forgetHoldoutConversions } from "./holdout-conversions.ts";

const DAY_MS = 86_400_000;
/** The largest job amount the app takes, in dollars: a typo of extra zeros is refused, not summed. */
export const WON_AMOUNT_MAX = 10_000_000;

export const MarkWonBody = Type.Object(
  {
    amount: Type.Number({
      description: "The job's amount in dollars, cents at most, from 0.01 to 10,000,000 (12500 or 12500.50).",
    }),
    closed_on: Type.String({
      format: "date",
      description:
        "The day the job was won (YYYY-MM-DD); it decides which card is credited (the last one mailed to the home in the 180 days up to it). It cannot change once the lead is won.",
    }),
  },
  { additionalProperties: false },
);
export type MarkWonBody = Static<typeof MarkWonBody>;

/**
 * Marks a lead won: the home becomes a customer (no more cards, its follow-ups stop), the won deal
 * is credited to the card that reached it (the lead's own card when it answered one), and the lead
 * keeps the day and amount. Marking it again changes the amount; the close day stays, as a CRM's
 * replayed deal keeps its first attribution.
 */
export async function markLeadWon(
  deps: AttributionDeps,
  orgId: string,
  leadId: string,
  body: MarkWonBody,
): Promise<void> {
  const lead = isUuid(leadId) ? await leadToMarkWon(deps.db, orgId, leadId) : undefined;
  if (!lead) throw notFound("lead not found");
  if (!namesAPlace(normalizeAddress(lead.full_address))) throw invalidPayload(NO_ADDRESS);
  // Whatever the change: the CRM's report of the job is what Revenue counts now.
  const crmDeal = await crmDealOfLead(deps.db, orgId, lead.id);
  if (crmDeal) throw reportedByCrm(crmDeal);
  const amount = checkedAmount(body.amount);
  const refused = invalidFields({
    ...(amount === undefined ? { amount: AMOUNT_PROBLEM } : {}),
    ...closeDayProblem(lead, body.closed_on, deps.clock.now()),
  });
  if (refused) throw refused;
  if (amount === undefined) throw invalidPayload(AMOUNT_PROBLEM); // said above; narrows the type
  // The day is claimed first: of two members marking it at once with different days, one keeps it.
  const claimed = await claimCloseDay(deps.db, orgId, lead.id, body.closed_on);
  if (claimed !== body.closed_on) throw invalidFields({ closed_on: dayStays(claimed) });
  try {
    await recordConversion(deps, orgId, wonDealOf(lead, amount, body.closed_on), "lead_won");
  } catch (error) {
    // The CRM's deal took the lead's over between the check above and this write.
    if (isLeadsSecondWonDeal(error)) {
      const taken = await crmDealOfLead(deps.db, orgId, lead.id);
      if (taken) throw reportedByCrm(taken);
    }
    // The deal was not written: the lead is not won, and a retry may choose another day.
    await releaseCloseDay(deps.db, orgId, lead.id, body.closed_on).catch(() => undefined);
    throw error;
  }
  await recordWonAmount(deps.db, orgId, lead.id, { closedOn: body.closed_on, amount }, deps.clock.now());
}

/**
 * Takes back a lead marked won by mistake: its won deal leaves Revenue, the lead is no longer won, and
 * the home leaves the customers list unless something else keeps it there. Cards stopped when it was
 * marked stay stopped. A job the CRM reported too is the CRM's to change (409 reported_by_crm). A lead
 * not won is left as it is (a retry after a lost answer is no error).
 */
export async function takeBackLeadWon(deps: AttributionDeps, orgId: string, leadId: string): Promise<void> {
  const lead = isUuid(leadId) ? await leadToMarkWon(deps.db, orgId, leadId) : undefined;
  if (!lead) throw notFound("lead not found");
  const crmDeal = await crmDealOfLead(deps.db, orgId, lead.id);
  if (crmDeal) throw reportedByCrm(crmDeal);
  await deps.db.transaction(async (tx) => {
    const removed = await queryRows<{ normalized_address: string }>(
      tx,
      sql`DELETE FROM conversions WHERE org_id = ${orgId}::uuid AND won_lead_id = ${lead.id}::uuid
            AND ${markedInApp()}
          RETURNING normalized_address`,
    );
    // The deal counted for an experiment that held the home out: that holdout's conversion goes too.
    await forgetHoldoutConversions(tx, orgId, wonDealKeyOf(lead.id));
    await clearWonJob(tx, orgId, lead.id);
    // A win no card was credited with wrote no conversion, only the customer at the lead's home.
    const homes = new Set(removed.map((deal) => deal.normalized_address));
    const leadsHome = normalizeAddress(lead.full_address);
    if (lead.won_on !== null && namesAPlace(leadsHome)) homes.add(leadsHome);
    for (const home of homes) await removeCustomerOfTakenBackWin(tx, orgId, home);
  });
}

/** The lead's job as a won deal: its home, its own card's campaign (the exact match), its contact. */
function wonDealOf(lead: WonLeadRow, amount: string, closedOn: string): ConversionFields {
  const name = `${lead.first_name} ${lead.last_name}`.trim();
  return {
    address: lead.full_address,
    idempotencyKey: wonDealKeyOf(lead.id),
    wonLeadId: lead.id,
    dealAmount: amount,
    dealDate: { at: new Date(`${closedOn}T00:00:00Z`), dateOnly: true },
    campaignId: lead.campaign_id ?? undefined,
    dealStage: "won in the app",
    dealName: name || "Lead (no name given)",
    contactFirstName: lead.first_name || undefined,
    contactLastName: lead.last_name || undefined,
    contactEmail: lead.email || undefined,
  };
}

/** The lead's won job as the CRM reported it, once a CRM's deal took it over (conversions.ts). */
async function crmDealOfLead(db: Queryable, orgId: string, leadId: string) {
  return queryOne<{ deal_id: string | null }>(
    db,
    sql`SELECT deal_id FROM conversions
        WHERE org_id = ${orgId}::uuid AND won_lead_id = ${leadId}::uuid
          AND NOT ${markedInApp()}`,
  );
}

const reportedByCrm = (deal: { deal_id: string | null }) =>
  new AppError(
    409,
    "reported_by_crm",
    `Your CRM reported this job won${deal.deal_id ? ` (deal ${deal.deal_id})` : ""}, so Revenue counts it at the CRM's amount. Change it in your CRM.`,
  );

/** A second won deal for one lead, refused by the unique index of migration 0630 (the driver's error may be wrapped). */
const isLeadsSecondWonDeal = (error: unknown) =>
  causeChain(error).some(
    (cause) =>
      cause.code === "23505" &&
      `${(cause as { constraint?: unknown }).constraint ?? ""} ${String(cause.message ?? "")}`.includes(
        "conversions_won_lead",
      ),
  );

const AMOUNT_PROBLEM = `Enter the job's amount, from $0.01 to $${WON_AMOUNT_MAX.toLocaleString("en-US")}.`;
const NO_ADDRESS =
  "This lead gave no address, so the job cannot be tied to a card. Record the won deal from your CRM with the home's address.";

/** The amount as decimal text with at most two decimals, or undefined when it is not one. */
function checkedAmount(amount: number): string | undefined {
  const cents = Math.round(amount * 100);
  if (!Number.isFinite(amount) || cents < 1 || amount > WON_AMOUNT_MAX) return undefined;
  if (Math.abs(cents - amount * 100) > 1e-6) return undefined;
  return (cents / 100).toFixed(2);
}

const dayStays = (wonOn: string | undefined) =>
  `This lead was marked won on ${wonOn}; that day stays. Only the amount can change.`;

/**
 * The close day is a calendar day near the lead's life: not before the day it came in nor after
 * today, a day's slack each way for time zones (the server's days are UTC). Once won, it stays.
 */
function closeDayProblem(lead: WonLeadRow, closedOn: string, now: Date): Record<string, string> {
  if (lead.won_on && lead.won_on !== closedOn) return { closed_on: dayStays(lead.won_on) };
  const day = Date.parse(`${closedOn}T00:00:00Z`);
  const receivedDay = Math.floor(new Date(lead.created_at).getTime() / DAY_MS) * DAY_MS;
  if (day < receivedDay - DAY_MS)
    return { closed_on: "A job won from this lead closes on or after the day it came in." };
  if (day > now.getTime() + DAY_MS) return { closed_on: "The day the job was won cannot be in the future." };
  return {};
}
