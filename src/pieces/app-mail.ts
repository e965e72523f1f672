// The contractor app's Mail screen: the org's pieces (filtered, keyset-paged) and one piece's page
// with its leads, conversions and tracking timeline. Reads only; every query is scoped to one org.

import { type Static, type TSchema, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { cursorTime, type KeysetCursor, keysetPage } from "../db/keyset-cursor.ts";
import { PIECE_STATUSES, type PieceStatus } from "../db/schema.ts";
import { isUuid } from "../domain/uuid.ts";
import { landingUrl } from "./campaigns.ts";
import { cardVersionOf } from "./card-template-sql.ts";
import { hasOpenLandingPage, landingPageClosesAt } from "./landing-page-lifetime.ts";

// The shapes the app API answers with (GET /pieces, GET /pieces/:id): the route's response
// schemas, and through Static<> the types this module returns.

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A piece's status (src/db/schema.ts lists them), typed as the statuses themselves, which a mapped union loses. */
export const PieceStatusSchema = Type.Unsafe<PieceStatus>(
  Type.Union(PIECE_STATUSES.map((status) => Type.Literal(status))),
);

const pieceFields = {
  id: Type.String({ format: "uuid" }),
  status: PieceStatusSchema,
  status_reason: Nullable(
    Type.String({
      description:
        "Why a piece was not mailed (suppressed, failed, skipped, cancelled, undeliverable, held_out) or waits (held, capped, awaiting approval, scheduled), in words; null otherwise.",
    }),
  ),
  recipient_name: Nullable(Type.String()),
  address: Type.String(),
  automation_id: Nullable(Type.String({ format: "uuid" })),
  automation_name: Nullable(Type.String()),
  campaign_id: Type.String({ format: "uuid" }),
  campaign_name: Type.String(),
  created_at: Type.String({ format: "date-time", description: "When the piece was queued." }),
  mailed_at: Nullable(Type.String({ format: "date-time" })),
  status_updated_at: Nullable(Type.String({ format: "date-time" })),
  sequence_step: Nullable(
    Type.Integer({
      minimum: 1,
      maximum: 3,
      description:
        "A follow-up card's place after the first card of its sequence (1-3); null on a first card.",
    }),
  ),
  scheduled_for: Nullable(
    Type.String({
      format: "date-time",
      description:
        "When a follow-up card is due: its delay after the first card's mailing (estimated from its scheduling until the first card is handed to the printer).",
    }),
  ),
  first_card_status: Type.Union([PieceStatusSchema, Type.Null()], {
    description:
      "A follow-up card's first card's status (null on a first card): until the first card goes to print (queued, held, awaiting_approval, capped), scheduled_for is an estimate.",
  }),
  thumbnail_url: Type.String({
    description: "A small PNG of the card's front, 160 px wide (same-origin, session cookie).",
  }),
  test_card: Type.Boolean({
    description:
      "A test card an owner sent from the automation's builder to an address they typed (POST /automations/{id}/test-card), not a card a CRM event made.",
  }),
  corrected: Type.Boolean({
    description:
      "An undeliverable card sent again to a corrected address (POST …/resend): nothing is left to do about it.",
  }),
};

export const MailPieceListItem = Type.Object(pieceFields, { additionalProperties: false });
export type MailPieceListItem = Static<typeof MailPieceListItem>;

export const MailPiecePage = Type.Object(
  {
    pieces: Type.Array(MailPieceListItem),
    next_cursor: Nullable(Type.String({ description: "null on the last page." })),
  },
  { additionalProperties: false },
);
export type MailPiecePage = Static<typeof MailPiecePage>;

export const TimelineStep = Type.Object(
  {
    step: Type.Unsafe<PieceStatus | "rendered">(
      Type.Union(
        [...PIECE_STATUSES, "rendered" as const].map((step) => Type.Literal(step)),
        {
          description:
            "queued, rendered, submitted, mailed, in_transit, delivered or returned; or the stop (suppressed, failed, skipped, cancelled, undeliverable, held_out, held, capped, awaiting_approval, scheduled).",
        },
      ),
    ),
    at: Nullable(Type.String({ format: "date-time" })),
    estimated: Type.Boolean({
      description:
        "Reached without a recorded event (e.g. the print provider sent none): `at` is the next known time.",
    }),
    reached: Type.Boolean(),
    detail: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type TimelineStep = Static<typeof TimelineStep>;

export const PieceLead = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    source: Type.String(),
    name: Type.String(),
    email: Type.String(),
    phone: Type.String(),
    attribution_type: Nullable(Type.String()),
    received_at: Type.String({ format: "date-time" }),
  },
  { additionalProperties: false },
);
export type PieceLead = Static<typeof PieceLead>;

export const PieceConversion = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    deal_id: Nullable(Type.String()),
    deal_name: Nullable(Type.String()),
    amount: Type.Union([Type.Number(), Type.Null()]),
    close_date: Nullable(Type.String({ format: "date-time" })),
    attribution_type: Type.String(),
    match_confidence: Type.String(),
  },
  { additionalProperties: false },
);
export type PieceConversion = Static<typeof PieceConversion>;

export const SequenceCard = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    sequence_step: Nullable(Type.Integer({ minimum: 1, maximum: 3, description: "null: the first card." })),
    status: PieceStatusSchema,
    status_reason: Nullable(
      Type.String({ description: "As the piece's own: why it waits or stopped, in words." }),
    ),
    scheduled_for: Nullable(Type.String({ format: "date-time" })),
    mailed_at: Nullable(Type.String({ format: "date-time" })),
  },
  { additionalProperties: false },
);
export type SequenceCard = Static<typeof SequenceCard>;

export const MailPieceDetail = Type.Object(
  {
    ...pieceFields,
    front_url: Type.String({ description: "SVG of the card's front (same-origin, session cookie)." }),
    back_url: Type.String({ description: "SVG of the card's back." }),
    landing_url: Nullable(
      Type.String({
        description:
          "The card's landing page while it is open; null before the card goes to print, for a card never mailed, and after the page closed.",
      }),
    ),
    landing_page_closes_at: Nullable(
      Type.String({
        format: "date-time",
        description:
          "When the landing page closes (LANDING_PAGE_TTL_DAYS after mailing), in the past once it has; null when the card has no page.",
      }),
    ),
    provider: Nullable(Type.String()),
    provider_status: Nullable(Type.String()),
    card_version: Nullable(
      Type.String({
        pattern: "^[0-9a-f]{32}$",
        description:
          "While the card awaits approval: which card its proofs show, to send with its approval (POST …/approve?card_version=) so an edit made since is not approved unseen; null otherwise.",
      }),
    ),
    approved: Nullable(
      Type.Object(
        { by: Type.String(), at: Type.String({ format: "date-time" }) },
        {
          additionalProperties: false,
          description:
            "Who approved the card for print (a member's name, else email) and when; null for a card that needed no approval.",
        },
      ),
    ),
    leads: Type.Array(PieceLead),
    conversions: Type.Array(PieceConversion),
    held_out_deals: Type.Array(
      Type.Object(
        {
          amount: Type.Union([Type.Number(), Type.Null()]),
          close_date: Type.String({ format: "date-time" }),
        },
        { additionalProperties: false },
      ),
      {
        description:
          "For a held-out home (status held_out): the won deals reported at it since, newest first (at most 100). Counted in Revenue's holdout comparison, never as revenue the cards earned; empty otherwise.",
      },
    ),
    corrected_by: Nullable(
      Type.Object(
        { id: Type.String({ format: "uuid" }), address: Type.String(), status: PieceStatusSchema },
        {
          additionalProperties: false,
          description:
            "For an undeliverable card sent again to a corrected address (POST …/resend): the card sent instead; null otherwise.",
        },
      ),
    ),
    corrects: Nullable(
      Type.Object(
        { id: Type.String({ format: "uuid" }), address: Type.String() },
        {
          additionalProperties: false,
          description:
            "For a card sent to a corrected address: the undeliverable card it replaces; null otherwise.",
        },
      ),
    ),
    timeline: Type.Array(TimelineStep),
    sequence: Type.Array(SequenceCard, {
      description:
        "Every card of the piece's sequence, this one included: the first card, then its follow-up cards in order. Empty for a card with no follow-ups.",
    }),
  },
  { additionalProperties: false },
);
export type MailPieceDetail = Static<typeof MailPieceDetail>;

/** Statuses at which a piece stopped without being mailed: they always carry a reason in words. */
const STOPPED: Partial<Record<PieceStatus, string>> = {
  suppressed: "Not mailed: the home is one of your customers (Customers, never mailed) or opted out.",
  failed: "Not mailed: the card could not be printed or sent.",
  skipped: "Not mailed: the home got a card recently (the frequency cap).",
  cancelled: "Not mailed: the card was cancelled before print.",
  undeliverable: "Not mailed: no carrier can deliver to the address as written.",
  capped: "Waiting: the monthly card cap is reached.",
  held: "Waiting: the automation holds cards for a while before print.",
  awaiting_approval: "Waiting for a member to approve the card.",
  scheduled: "Waiting: a follow-up card is mailed on its day unless the home answers first.",
  held_out: "Not mailed: the home is in the automation's holdout group, which measures what the mail adds.",
};

/** Where a piece is, said for a person: the recorded reason when there is one, else the status's meaning. */
export function reasonInWords(status: PieceStatus, recorded: string | null): string | null {
  const meaning = STOPPED[status];
  if (meaning === undefined) return null;
  const reason = recorded?.trim();
  if (!reason) return meaning;
  return /^[a-z]/.test(reason) ? `${reason[0]!.toUpperCase()}${reason.slice(1)}` : reason;
}

export interface PieceFilters {
  automationId?: string;
  /** Only the cards of reactivation mailings (sent from imported past jobs, no automation). */
  reactivation?: boolean;
  status?: PieceStatus;
  /** Inclusive first day (YYYY-MM-DD, UTC). */
  from?: string;
  /** Inclusive last day (YYYY-MM-DD, UTC). */
  to?: string;
}

interface PieceRow {
  id: string;
  status: PieceStatus;
  status_reason: string | null;
  recipient_name: string | null;
  address: string;
  automation_id: string | null;
  automation_name: string | null;
  campaign_id: string;
  campaign_name: string;
  created_at: Date | string;
  cursor_at: string;
  mailed_at: Date | string | null;
  status_updated_at: Date | string | null;
  sequence_step: number | null;
  scheduled_for: Date | string | null;
  first_card_status: PieceStatus | null;
  corrected: boolean;
  test_card: boolean;
}

const asDate = (value: Date | string | null) => (value === null ? null : new Date(value));
const iso = (value: Date | string | null) => asDate(value)?.toISOString() ?? null;
const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();

/** Where the app serves a piece's card side: its list thumbnail (PNG) or its page's preview (SVG). */
export const proofUrl = (pieceId: string, side: "front" | "back", thumbnail = false) =>
  `/app/api/v1/pieces/${pieceId}/proof/${side}.${thumbnail ? "png" : "svg"}`;

/**
 * A waiting card's preview with its card version in the address (null: none), so a card edited
 * since is fetched anew instead of taken from the browser's cache.
 */
export const versionedProofUrl = (pieceId: string, side: "front" | "back", version: string | null) =>
  version ? `${proofUrl(pieceId, side)}?v=${version}` : proofUrl(pieceId, side);

const PIECE_COLUMNS = sql`p.id, p.status, p.status_reason, p.recipient_name, p.address, c.automation_id,
  a.name AS automation_name, p.campaign_id, c.name AS campaign_name, p.created_at,
  ${cursorTime(sql`p.created_at`)} AS cursor_at,
  p.mailed_at, p.status_updated_at, p.sequence_step, p.scheduled_for, f.status AS first_card_status,
  CASE WHEN p.status = 'undeliverable'
       THEN EXISTS (SELECT 1 FROM mail_pieces r WHERE r.org_id = p.org_id AND r.corrects_piece_id = p.id)
       ELSE false END AS corrected, c.origin = 'test_card' AS test_card`;

const PIECE_JOINS = sql`FROM mail_pieces p
  JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
  LEFT JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id
  LEFT JOIN mail_pieces f ON f.org_id = p.org_id AND f.id = p.sequence_first_piece_id AND p.sequence_step IS NOT NULL`;

function listItem(row: PieceRow): MailPieceListItem {
  return {
    id: row.id,
    status: row.status,
    status_reason: reasonInWords(row.status, row.status_reason),
    recipient_name: row.recipient_name,
    address: row.address,
    automation_id: row.automation_id,
    automation_name: row.automation_name,
    campaign_id: row.campaign_id,
    campaign_name: row.campaign_name,
    created_at: iso(row.created_at)!,
    mailed_at: iso(row.mailed_at),
    status_updated_at: iso(row.status_updated_at),
    sequence_step: row.sequence_step,
    scheduled_for: iso(row.scheduled_for),
    first_card_status: row.first_card_status,
    thumbnail_url: proofUrl(row.id, "front", true),
    corrected: row.corrected,
    test_card: row.test_card,
  };
}

/** The org's pieces, newest first, keyset-paged by (created_at, id): one more row than the page says whether another follows. */
export async function listMailPieces(
  db: Queryable,
  orgId: string,
  filters: PieceFilters,
  cursor: KeysetCursor | undefined,
  limit: number,
): Promise<MailPiecePage> {
  const conditions = [sql`p.org_id = ${orgId}::uuid`];
  if (filters.automationId) conditions.push(sql`c.automation_id = ${filters.automationId}::uuid`);
  if (filters.reactivation) conditions.push(sql`c.origin = 'reactivation'`);
  if (filters.status) conditions.push(sql`p.status = ${filters.status}`);
  if (filters.from) conditions.push(sql`p.created_at >= ${`${filters.from}T00:00:00Z`}::timestamptz`);
  if (filters.to) conditions.push(sql`p.created_at < ${dayAfter(filters.to)}::timestamptz`);
  if (cursor) {
    conditions.push(sql`(p.created_at, p.id) < (${cursor.createdAt}::timestamptz, ${cursor.id}::uuid)`);
  }
  const rows = await queryRows<PieceRow>(
    db,
    sql`SELECT ${PIECE_COLUMNS} ${PIECE_JOINS}
        WHERE ${sql.join(conditions, sql` AND `)}
        ORDER BY p.created_at DESC, p.id DESC LIMIT ${limit + 1}`,
  );
  const { page, nextCursor } = keysetPage(rows, limit);
  return { pieces: page.map(listItem), next_cursor: nextCursor };
}

export const TIMELINE_STEPS = [
  "queued",
  "rendered",
  "submitted",
  "mailed",
  "in_transit",
  "delivered",
] as const;

/** The order a mailed piece moves in; a piece stopped early ends with its stop (suppressed, failed…). */
const PROGRESS: Partial<Record<PieceStatus, number>> = {
  queued: 0,
  held: 0,
  awaiting_approval: 0,
  capped: 0,
  submitted: 2,
  mailed: 3,
  in_transit: 4,
  delivered: 5,
  returned: 5,
};

/**
 * queued → rendered → submitted → mailed → in transit → delivered / returned, each with the time
 * the piece reached it. A step the piece passed without a recorded event (the renderer records
 * none; the local print provider goes straight to mailed; Lob may skip in_transit) is estimated
 * with the time of the next recorded step.
 */
export function buildTimeline(
  piece: Pick<MailPieceListItem, "status" | "created_at" | "mailed_at" | "status_updated_at">,
  events: Map<string, string>,
  reason: string | null,
): TimelineStep[] {
  const progress = PROGRESS[piece.status];
  // A follow-up not due yet was scheduled, not queued: its timeline starts there and waits.
  if (piece.status === "scheduled") {
    return [
      { step: "scheduled", at: piece.created_at, estimated: false, reached: true, detail: reason },
      ...TIMELINE_STEPS.map((step) => ({ step, at: null, estimated: false, reached: false, detail: null })),
    ];
  }
  const stoppedEarly = progress === undefined;
  const finalStep = piece.status === "returned" ? "returned" : "delivered";
  const steps = TIMELINE_STEPS.map((step) => (step === "delivered" ? finalStep : step));
  const reachedIndex = progress ?? 0;
  const known = new Map(events);
  known.set("queued", known.get("queued") ?? piece.created_at);
  if (piece.mailed_at && reachedIndex >= 3) known.set("mailed", piece.mailed_at);
  if (!known.has(piece.status) && piece.status_updated_at) known.set(piece.status, piece.status_updated_at);
  const timeline: TimelineStep[] = steps.map((step, index) => {
    const reached = index <= reachedIndex;
    let at = reached ? (known.get(step) ?? null) : null;
    let estimated = false;
    if (reached && at === null) {
      estimated = true;
      at =
        steps
          .slice(index + 1, reachedIndex + 1)
          .map((later) => known.get(later))
          .find(Boolean) ?? null;
    }
    return { step, at, estimated, reached, detail: null };
  });
  if (stoppedEarly) {
    timeline.splice(1, timeline.length - 1, {
      step: piece.status,
      at: known.get(piece.status) ?? piece.status_updated_at,
      estimated: false,
      reached: true,
      detail: reason,
    });
  }
  return timeline;
}

/** One of the org's pieces with everything its page shows; undefined for another org's or a missing id. */
export async function getMailPiece(
  db: Queryable,
  orgId: string,
  pieceId: string,
  landing: { publicBaseUrl: string; ttlDays: number; now: Date },
): Promise<MailPieceDetail | undefined> {
  if (!isUuid(pieceId)) return undefined;
  const row = await queryOne<
    PieceRow & {
      token: string;
      provider: string | null;
      provider_status: string | null;
      card_version: string | null;
      sequence_first_piece_id: string | null;
      approved_by: string | null;
      approved_at: Date | string | null;
      corrected_by_id: string | null;
      corrected_by_address: string | null;
      corrected_by_status: PieceStatus | null;
      corrects_id: string | null;
      corrects_address: string | null;
    }
  >(
    db,
    sql`SELECT ${PIECE_COLUMNS}, p.token, p.provider, p.provider_status, p.sequence_first_piece_id,
               p.approved_by, p.approved_at, r.id AS corrected_by_id, r.address AS corrected_by_address,
               r.status AS corrected_by_status, o.id AS corrects_id, o.address AS corrects_address,
               CASE WHEN p.status = 'awaiting_approval' THEN ${cardVersionOf("p")} END AS card_version
        ${PIECE_JOINS}
        LEFT JOIN mail_pieces r ON r.org_id = p.org_id AND r.corrects_piece_id = p.id
        LEFT JOIN mail_pieces o ON o.org_id = p.org_id AND o.id = p.corrects_piece_id
        WHERE p.org_id = ${orgId}::uuid AND p.id = ${pieceId}::uuid`,
  );
  if (!row) return undefined;
  const [events, leads, conversions, sequence, heldOutDeals] = await Promise.all([
    queryRows<{ status: string; at: Date | string }>(
      db,
      sql`SELECT status, at FROM mail_piece_events WHERE org_id = ${orgId}::uuid AND piece_id = ${row.id}::uuid`,
    ),
    queryRows<{
      id: string;
      source: string;
      first_name: string;
      last_name: string;
      email: string;
      phone: string;
      attribution_type: string | null;
      created_at: Date | string;
    }>(
      db,
      sql`SELECT id, source, first_name, last_name, email, phone, attribution_type, created_at FROM leads
          WHERE org_id = ${orgId}::uuid AND piece_id = ${row.id}::uuid ORDER BY created_at DESC, id LIMIT 100`,
    ),
    queryRows<{
      id: string;
      deal_id: string | null;
      deal_name: string | null;
      deal_amount: string | number | null;
      deal_date: Date | string | null;
      attribution_type: string;
      match_confidence: string;
    }>(
      db,
      sql`SELECT id, deal_id, deal_name, deal_amount, deal_date, attribution_type, match_confidence FROM conversions
          WHERE org_id = ${orgId}::uuid AND piece_id = ${row.id}::uuid ORDER BY created_at DESC, id LIMIT 100`,
    ),
    sequenceOf(db, orgId, row.sequence_first_piece_id ?? row.id),
    row.status === "held_out" && row.automation_id
      ? queryRows<{ deal_amount: string | number | null; deal_date: Date | string }>(
          db,
          sql`SELECT deal_amount, deal_date FROM holdout_conversions
              WHERE org_id = ${orgId}::uuid AND automation_id = ${row.automation_id}::uuid AND piece_id = ${row.id}::uuid
              ORDER BY deal_date DESC LIMIT 100`,
        )
      : [],
  ]);
  const item = listItem(row);
  const lifetime = {
    status: row.status,
    mailedAt: asDate(row.mailed_at),
    statusUpdatedAt: asDate(row.status_updated_at),
    createdAt: asDate(row.created_at)!,
  };
  const closesAt = landingPageClosesAt(lifetime, landing.ttlDays);
  const pageOpen = hasOpenLandingPage(lifetime, landing.now, landing.ttlDays);
  return {
    ...item,
    front_url: versionedProofUrl(row.id, "front", row.card_version),
    back_url: versionedProofUrl(row.id, "back", row.card_version),
    landing_url: pageOpen ? landingUrl(landing.publicBaseUrl, row.token) : null,
    landing_page_closes_at: closesAt?.toISOString() ?? null,
    provider: row.provider,
    provider_status: row.provider_status,
    card_version: row.card_version,
    approved: row.approved_by && row.approved_at ? { by: row.approved_by, at: iso(row.approved_at)! } : null,
    leads: leads.map((lead) => ({
      id: lead.id,
      source: lead.source,
      name: `${lead.first_name} ${lead.last_name}`.trim(),
      email: lead.email,
      phone: lead.phone,
      attribution_type: lead.attribution_type,
      received_at: iso(lead.created_at)!,
    })),
    conversions: conversions.map((conversion) => ({
      id: conversion.id,
      deal_id: conversion.deal_id,
      deal_name: conversion.deal_name,
      amount: conversion.deal_amount === null ? null : Number(conversion.deal_amount),
      close_date: iso(conversion.deal_date),
      attribution_type: conversion.attribution_type,
      match_confidence: conversion.match_confidence,
    })),
    held_out_deals: heldOutDeals.map((deal) => ({
      amount: deal.deal_amount === null ? null : Number(deal.deal_amount),
      close_date: iso(deal.deal_date)!,
    })),
    corrected_by:
      row.corrected_by_id && row.corrected_by_address && row.corrected_by_status
        ? { id: row.corrected_by_id, address: row.corrected_by_address, status: row.corrected_by_status }
        : null,
    corrects:
      row.corrects_id && row.corrects_address ? { id: row.corrects_id, address: row.corrects_address } : null,
    timeline: buildTimeline(
      item,
      new Map(events.map((event) => [event.status, iso(event.at)!])),
      item.status_reason,
    ),
    sequence,
  };
}

/**
 * The cards of one sequence, first card first, each follow-up in its order; empty when the first
 * card has no follow-ups (a card alone is no sequence). Two probes of the (org_id, id) and
 * (org_id, sequence_first_piece_id, sequence_step) indexes.
 */
async function sequenceOf(db: Queryable, orgId: string, firstId: string): Promise<SequenceCard[]> {
  const rows = await queryRows<{
    id: string;
    sequence_step: number | null;
    status: PieceStatus;
    status_reason: string | null;
    scheduled_for: Date | string | null;
    mailed_at: Date | string | null;
  }>(
    db,
    sql`SELECT id, sequence_step, status, status_reason, scheduled_for, mailed_at FROM mail_pieces
        WHERE org_id = ${orgId}::uuid AND id = ${firstId}::uuid
        UNION ALL
        SELECT id, sequence_step, status, status_reason, scheduled_for, mailed_at FROM mail_pieces
        WHERE org_id = ${orgId}::uuid AND sequence_first_piece_id = ${firstId}::uuid
        ORDER BY sequence_step NULLS FIRST`,
  );
  if (rows.length < 2) return [];
  return rows.map((card) => ({
    id: card.id,
    sequence_step: card.sequence_step,
    status: card.status,
    status_reason: reasonInWords(card.status, card.status_reason),
    scheduled_for: iso(card.scheduled_for),
    mailed_at: iso(card.mailed_at),
  }));
}
