// The contractor app's Overview: per UTC month, what was mailed and what it earned. Cards are
// counted when mailed, leads and visits when they happened, won deals by their close date
// (else when the conversion was recorded); cost is each card at the cost per card of the day it
// went to print (mailCost; migration 0650).
// The counts come from roll-ups kept on write (monthly-figures.ts, landing_visits).
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { SAMPLE_LEAD_ID } from "../leads/polling.ts";
import type { EventTypeSummary } from "./app-reads.ts";
import { figuresByMonth } from "./monthly-figures.ts";

// The shapes the app API answers with (GET /overview, GET /attention): the routes' response
// schemas, and through Static<> the types this module returns.

const NullableNumber = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

const figures = {
  cards_mailed: Type.Integer(),
  landing_visits: Type.Integer({ description: "Views of the org's open landing pages." }),
  leads: Type.Integer({ description: "Landing-page and CRM-synced leads received." }),
  won_deals: Type.Integer({ description: "Attributed conversions, by close date." }),
  attributed_revenue: Type.Number({ description: "Sum of attributed deal amounts." }),
  cost: NullableNumber("Cards mailed × the profile's cost per card; null without a cost per card."),
  return_on_spend: NullableNumber("Attributed revenue ÷ cost; null without a cost."),
};

export const Totals = Type.Object(figures, { additionalProperties: false });
export type Totals = Static<typeof Totals>;

export const MonthFigures = Type.Object(
  { month: Type.String({ description: "YYYY-MM (UTC)." }), ...figures },
  { additionalProperties: false },
);
export type MonthFigures = Static<typeof MonthFigures>;

/** The first day of each of the `count` UTC months ending with `now`'s, oldest first (YYYY-MM-01). */
export function lastMonths(now: Date, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (count - 1 - i), 1));
    return date.toISOString().slice(0, 10);
  });
}

const monthAfter = (month: string) => {
  const date = new Date(`${month}T00:00:00Z`);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
};

/**
 * What a card mailed without a price of its own counts at (mailCost): the cost the screens showed
 * for such cards when the cost per card first changed, else today's (migration 0650).
 */
export async function unpricedCardCents(db: Queryable, orgId: string): Promise<number | null> {
  const row = await queryOne<{ cents: number | null }>(
    db,
    sql`SELECT COALESCE(unpriced_cards_cost_cents, cost_per_card_cents) AS cents
        FROM organization_profiles WHERE org_id = ${orgId}::uuid`,
  );
  return row?.cents ?? null;
}

export async function costPerCardCents(db: Queryable, orgId: string): Promise<number | null> {
  const row = await queryOne<{ cost_per_card_cents: number | null }>(
    db,
    sql`SELECT cost_per_card_cents FROM organization_profiles WHERE org_id = ${orgId}::uuid`,
  );
  return row?.cost_per_card_cents ?? null;
}

/**
 * What the mail cost: each card at the cost per card of the day it was mailed, and the cards mailed
 * without one (before any cost was set, or before prices were kept) at `unpricedCents`
 * (unpricedCardCents); null when some card has no price and there is none for them.
 */
export function mailCost(
  cards: { mailed: number; priced: number; pricedCents: number },
  unpricedCents: number | null,
): number | null {
  const unpriced = cards.mailed - cards.priced;
  if (unpricedCents === null && (unpriced > 0 || cards.mailed === 0)) return null;
  return (cards.pricedCents + unpriced * (unpricedCents ?? 0)) / 100;
}

/** Return on spend from a cost and revenue, with the cost (one rule for Overview and Revenue). */
export function spendFigures(cost: number | null, revenue: number) {
  return { cost, return_on_spend: cost ? Math.round((revenue / cost) * 100) / 100 : null };
}

/** The cards of figures, as mailCost reads them. */
export const cardsOf = (figures: { cardsMailed: number; cardsPriced: number; costCents: number }) => ({
  mailed: figures.cardsMailed,
  priced: figures.cardsPriced,
  pricedCents: figures.costCents,
});

/** The org's figures for each of the last `count` UTC months. */
export async function monthlyFigures(
  db: Queryable,
  orgId: string,
  now: Date,
  count: number,
): Promise<MonthFigures[]> {
  const months = lastMonths(now, count);
  const [from, to] = [months[0]!, monthAfter(months.at(-1)!)];
  const [figures, visits, unpricedCents] = await Promise.all([
    figuresByMonth(db, orgId, from, to),
    landingVisitsByMonth(db, orgId, from, to),
    unpricedCardCents(db, orgId),
  ]);
  return months.map((month) => {
    const counted = figures.get(month);
    const cardsMailed = counted?.cardsMailed ?? 0;
    const attributedRevenue = counted?.revenue ?? 0;
    return {
      month: month.slice(0, 7),
      cards_mailed: cardsMailed,
      landing_visits: visits.get(month) ?? 0,
      leads: counted?.leads ?? 0,
      won_deals: counted?.wonDeals ?? 0,
      attributed_revenue: attributedRevenue,
      ...spendFigures(
        mailCost(cardsOf(counted ?? { cardsMailed: 0, cardsPriced: 0, costCents: 0 }), unpricedCents),
        attributedRevenue,
      ),
    };
  });
}

async function landingVisitsByMonth(db: Queryable, orgId: string, from: string, to: string) {
  const rows = await queryRows<{ month: string; visits: number | string | null }>(
    db,
    sql`SELECT to_char(month, 'YYYY-MM-DD') AS month, sum(visits) AS visits FROM landing_visits
        WHERE org_id = ${orgId}::uuid AND month >= ${from}::date AND month < ${to}::date GROUP BY month`,
  );
  return new Map(rows.map((row) => [row.month, Number(row.visits ?? 0)]));
}

/** The sum of months; return on spend recomputed from the sums (the cost is null when a month's is). */
export function totalsOf(months: MonthFigures[]): Totals {
  const sum = (pick: (m: MonthFigures) => number) => months.reduce((total, m) => total + pick(m), 0);
  const cards = sum((m) => m.cards_mailed);
  const revenue = sum((m) => m.attributed_revenue);
  return {
    cards_mailed: cards,
    landing_visits: sum((m) => m.landing_visits),
    leads: sum((m) => m.leads),
    won_deals: sum((m) => m.won_deals),
    attributed_revenue: revenue,
    // Summed in cents: dollars added month by month drift (0.1 + 0.2).
    ...spendFigures(
      months.some((m) => m.cost === null) ? null : Math.round(sum((m) => (m.cost ?? 0) * 100)) / 100,
      revenue,
    ),
  };
}

/** One thing on Overview that needs a person; the mail kinds come from here, the others from the route. */
export const AttentionItem = Type.Object(
  {
    kind: Type.Union([
      Type.Literal("unbound_event_type"),
      Type.Literal("automations_paused"),
      Type.Literal("failed_pieces"),
      Type.Literal("undeliverable_pieces"),
      Type.Literal("automation_disabled"),
      Type.Literal("subscription_failing"),
      Type.Literal("no_return_address"),
      Type.Literal("events_without_address"),
      Type.Literal("capped_pieces"),
    ]),
    message: Type.String(),
    event_type: Type.Optional(Type.String()),
    automation_id: Type.Optional(Type.String()),
    subscription_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type AttentionItem = Static<typeof AttentionItem>;

/**
 * Cards held by a monthly cap: they go out when the next UTC month starts (spend-caps.ts), or at
 * once when an owner raises the cap. Said on Overview, not only as a badge in the caps box.
 */
function cappedWords(cards: number, now: Date): string {
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const day = nextMonth.toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
  return cards === 1
    ? `1 card waits because a monthly cap is reached: it goes out on ${day}, or as soon as an owner raises the cap.`
    : `${cards} cards wait because a monthly cap is reached: they go out on ${day}, or as soon as an owner raises the cap.`;
}

/**
 * What in the org's mail and deliveries needs a person: cards mailing without a return address;
 * pieces that failed, or whose address no carrier can deliver, in the last 30 days; automations
 * turned off; subscriptions whose latest delivery failed.
 */
export async function mailAttentionItems(db: Queryable, orgId: string, now: Date): Promise<AttentionItem[]> {
  const since = new Date(now.getTime() - 30 * 86_400_000).toISOString();
  const stoppedSince = (status: string, unless = sql``) =>
    queryOne<{ count: number | string }>(
      db,
      sql`SELECT count(*) AS count FROM mail_pieces p WHERE p.org_id = ${orgId}::uuid AND p.status = ${status}
            AND COALESCE(p.status_updated_at, p.created_at) >= ${since}::timestamptz ${unless}`,
    );
  const [noReturnAddress, failed, undeliverable, disabled, failing, capped] = await Promise.all([
    mailsWithoutReturnAddress(db, orgId, since),
    stoppedSince("failed"),
    // A card sent again to a corrected address is dealt with (migrations/0660).
    stoppedSince(
      "undeliverable",
      sql`AND NOT EXISTS (SELECT 1 FROM mail_pieces r WHERE r.org_id = p.org_id AND r.corrects_piece_id = p.id)`,
    ),
    queryRows<{ id: string; name: string }>(
      db,
      sql`SELECT id, name FROM automations WHERE org_id = ${orgId}::uuid AND NOT enabled ORDER BY name, id LIMIT 20`,
    ),
    queryRows<{ id: string; target_url: string; status_code: number | null; outcome: string; test: boolean }>(
      db,
      sql`SELECT s.id, s.target_url, d.status_code, d.outcome, d.lead_id = ${SAMPLE_LEAD_ID}::uuid AS test
          FROM subscriptions s
          JOIN LATERAL (SELECT outcome, status_code, lead_id FROM deliveries
                        WHERE org_id = s.org_id AND subscription_id = s.id
                        ORDER BY created_at DESC, id DESC LIMIT 1) d ON true
          WHERE s.org_id = ${orgId}::uuid
            AND NOT (d.outcome = 'attempted' AND d.status_code BETWEEN 200 AND 299)
          ORDER BY s.created_at, s.id`,
    ),
    // Kept on write (migrations/0338): no scan of the pieces.
    queryOne<{ count: number | string | null }>(
      db,
      sql`SELECT sum(pieces) AS count FROM piece_status_counts WHERE org_id = ${orgId}::uuid AND status = 'capped'`,
    ),
  ]);
  const items: AttentionItem[] = [];
  if (noReturnAddress) {
    items.push({
      kind: "no_return_address",
      message:
        "Your cards print without a return address, so a homeowner cannot tell where they come from. Add one in Settings.",
    });
  }
  const failedCount = Number(failed?.count ?? 0);
  if (failedCount > 0) {
    items.push({
      kind: "failed_pieces",
      message: `${failedCount} card${failedCount === 1 ? "" : "s"} could not be mailed in the last 30 days; Mail shows why.`,
    });
  }
  const undeliverableCount = Number(undeliverable?.count ?? 0);
  if (undeliverableCount > 0) {
    items.push({
      kind: "undeliverable_pieces",
      message:
        undeliverableCount === 1
          ? "1 card was not printed in the last 30 days: no carrier can deliver to its address. An owner can correct the address on the card's page in Mail and send it again."
          : `${undeliverableCount} cards were not printed in the last 30 days: no carrier can deliver to their addresses. An owner can correct each address on the card's page in Mail and send it again.`,
    });
  }
  const cappedCount = Number(capped?.count ?? 0);
  if (cappedCount > 0) items.push({ kind: "capped_pieces", message: cappedWords(cappedCount, now) });
  for (const automation of disabled) {
    items.push({
      kind: "automation_disabled",
      automation_id: automation.id,
      message: `The automation "${automation.name}" is turned off: it mails nothing until it is turned on.`,
    });
  }
  for (const subscription of failing) {
    let origin = "";
    try {
      origin = new URL(subscription.target_url).origin;
    } catch {}
    const why = subscription.status_code ?? subscription.outcome;
    items.push({
      kind: "subscription_failing",
      subscription_id: subscription.id,
      // A failed Send test is no lost lead: said apart, so a contractor does not look for one.
      message: subscription.test
        ? `The last test sent to ${origin} was not delivered (${why}); check the receiver.`
        : `The last lead sent to ${origin} was not delivered (${why}) and will not be sent again (it is in Leads); check the receiver.`,
    });
  }
  return items;
}

/**
 * Cards still print and mail with no return address (a carrier does not require one on marketing
 * mail, and holding cards back would stop a CRM's mail without a word to it), so the lack is said
 * here once the organization mails: an enabled automation, or a card in the last 30 days.
 */
async function mailsWithoutReturnAddress(db: Queryable, orgId: string, since: string): Promise<boolean> {
  const row = await queryOne<{ missing: boolean }>(
    db,
    sql`SELECT NOT EXISTS (SELECT 1 FROM organization_profiles WHERE org_id = ${orgId}::uuid
                           AND btrim(coalesce(return_street, '')) <> '')
           AND (EXISTS (SELECT 1 FROM automations WHERE org_id = ${orgId}::uuid AND enabled)
                OR EXISTS (SELECT 1 FROM mail_pieces WHERE org_id = ${orgId}::uuid
                           AND created_at >= ${since}::timestamptz)) AS missing`,
  );
  return Boolean(row?.missing);
}

const NEWEST_DAY = new Intl.DateTimeFormat("en-US", {
  timeZone: "UTC",
  month: "short",
  day: "numeric",
  year: "numeric",
});

/**
 * Event types whose events named no address in the last 30 days, so the automation listening made
 * no card for them: a CRM that drops the street on some jobs leaves those homes without a card, and
 * only the raw samples showed it. (An event type nothing listens to is its own item.)
 */
export function eventsWithoutAddress(types: readonly EventTypeSummary[], now: Date): AttentionItem[] {
  const since = now.getTime() - 30 * 86_400_000;
  return types
    .filter((type) => type.bound && type.last_without_address_at !== null)
    .filter((type) => Date.parse(type.last_without_address_at!) >= since)
    .map((type) => ({
      kind: "events_without_address" as const,
      event_type: type.event_type,
      message: `Some "${type.event_type}" events named no address, so no card was made for them (${type.without_address} in all, the newest on ${NEWEST_DAY.format(new Date(type.last_without_address_at!))}). Check that your CRM or flow sends the job's street with its city or ZIP.`,
    }));
}
