import type { SQL } from "drizzle-orm";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import type { PieceStatus } from "../db/schema.ts";
import { nonBlank, parseUsAddress, uspsStateCode } from "../domain/address.ts";
import { streetAsWritten, townAsZipSpellsIt } from "../domain/deliverable-address.ts";
import { zipPlaces } from "../domain/zip-places.ts";
import type { StandardAddress } from "../geo/address-verifier.ts";
import type { HomeLocation } from "../imagery/home-imagery.ts";
import type { MailingAddress } from "../print/print-provider.ts";
import type { CardRecipient } from "../render/compose.ts";
import { type ResolvedTemplate, resolveTemplate } from "../render/template.ts";
import { printedTemplateOf, stepOfFollowUp } from "./card-template-sql.ts";

/** A piece with what the pipeline needs around it: its organization and its automation's settings. */
export interface PieceRecord {
  orgId: string;
  id: string;
  status: PieceStatus;
  recipientName: string | null;
  address: string;
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  /** Null until the pipeline keys a piece queued by an event (pieces/piece-updates.ts). */
  normalizedAddress: string | null;
  latitude: number | null;
  longitude: number | null;
  token: string;
  properties: Record<string, string>;
  submissionJobId: string | null;
  orgName: string;
  automationId: string | null;
  /** False only when the piece's automation opted out of customer suppression. */
  suppressCustomers: boolean;
  /** The automation's holdout share (0 without an automation): domain/holdout-group.ts. */
  holdoutPercent: number;
  template: ResolvedTemplate;
  createdAt: Date;
  /** Set when the piece entered its automation's hold window (mail safety). */
  holdUntil: Date | null;
  approvedAt: Date | null;
  /** The address the card prints, once verified before print (the verifier's standard form when it gave one). */
  verifiedAddress: StandardAddress | null;
  /** A follow-up card's step (1-3) and its sequence's first card; null on a first card (follow-ups.ts). */
  sequenceStep: number | null;
  sequenceFirstPieceId: string | null;
  scheduledFor: Date | null;
  /** How many follow-ups the piece's automation has now (turned off, it writes none: scheduleFollowUps). */
  automationFollowUps: number;
  /**
   * A follow-up that must not print: its step is gone from the automation (so is its card), or the
   * automation is turned off. Null on a first card and on a follow-up still to go.
   */
  followUpEnded: FollowUpEnd | null;
}

export type FollowUpEnd = "step_removed" | "automation_off";

interface Row {
  org_id: string;
  id: string;
  status: PieceStatus;
  recipient_name: string | null;
  address: string;
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  normalized_address: string | null;
  latitude: number | null;
  longitude: number | null;
  token: string;
  properties: Record<string, string> | string;
  submission_job_id: string | null;
  org_name: string;
  automation_id: string | null;
  suppress_customers: boolean | null;
  holdout_percent: number | null;
  template: unknown;
  created_at: Date | string;
  hold_until: Date | string | null;
  approved_at: Date | string | null;
  verified_address: StandardAddress | string | null;
  sequence_step: number | null;
  sequence_first_piece_id: string | null;
  scheduled_for: Date | string | null;
  automation_follow_ups: number | null;
  follow_up_ended: FollowUpEnd | null;
}

const PIECE_COLUMNS = sql`
  SELECT p.org_id, p.id, p.status, p.recipient_name, p.address, p.street, p.city, p.state, p.zip,
         p.normalized_address, p.latitude, p.longitude, p.token, p.properties, p.submission_job_id,
         o.name AS org_name, c.automation_id, a.suppress_customers,
         -- A test card is neither held out nor followed up: its sender is there to see it.
         CASE WHEN c.origin = 'test_card' THEN 0 ELSE a.holdout_percent END AS holdout_percent,
         ${printedTemplateOf("p")} AS template,
         p.created_at, p.hold_until, p.approved_at, p.verified_address,
         p.sequence_step, p.sequence_first_piece_id, p.scheduled_for,
         CASE WHEN c.origin = 'test_card' THEN 0 ELSE jsonb_array_length(a.steps) END AS automation_follow_ups,
         CASE WHEN p.sequence_step IS NULL THEN NULL
              WHEN ${stepOfFollowUp("p")} IS NULL THEN 'step_removed'
              WHEN a.enabled IS FALSE THEN 'automation_off' END AS follow_up_ended`;

/** The pieces of `pieces` (rows of mail_pieces' shape, as `p`) with their organization and automation. */
const piecesWithContext = (pieces: SQL) => sql`${PIECE_COLUMNS}
  FROM ${pieces} p
  JOIN organizations o ON o.id = p.org_id
  JOIN campaigns c ON c.org_id = p.org_id AND c.id = p.campaign_id
  LEFT JOIN automations a ON a.org_id = c.org_id AND a.id = c.automation_id`;

const PIECE_SELECT = piecesWithContext(sql`mail_pieces`);

function toRecord(row: Row): PieceRecord {
  const json = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);
  return {
    orgId: row.org_id,
    id: row.id,
    status: row.status,
    recipientName: row.recipient_name,
    address: row.address,
    street: row.street,
    city: row.city,
    state: row.state,
    zip: row.zip,
    normalizedAddress: row.normalized_address,
    latitude: row.latitude,
    longitude: row.longitude,
    token: row.token,
    properties: (json(row.properties) ?? {}) as Record<string, string>,
    submissionJobId: row.submission_job_id,
    orgName: row.org_name,
    automationId: row.automation_id,
    suppressCustomers: row.suppress_customers !== false,
    holdoutPercent: row.holdout_percent ?? 0,
    template: resolveTemplate(json(row.template)),
    createdAt: new Date(row.created_at),
    holdUntil: row.hold_until === null ? null : new Date(row.hold_until),
    approvedAt: row.approved_at === null ? null : new Date(row.approved_at),
    verifiedAddress: (json(row.verified_address) ?? null) as StandardAddress | null,
    sequenceStep: row.sequence_step,
    sequenceFirstPieceId: row.sequence_first_piece_id,
    scheduledFor: row.scheduled_for === null ? null : new Date(row.scheduled_for),
    automationFollowUps: row.automation_follow_ups ?? 0,
    followUpEnded: row.follow_up_ended,
  };
}

export async function loadPiece(
  db: Queryable,
  orgId: string,
  pieceId: string,
): Promise<PieceRecord | undefined> {
  const row = await queryOne<Row>(db, sql`${PIECE_SELECT} WHERE p.org_id = ${orgId} AND p.id = ${pieceId}`);
  return row ? toRecord(row) : undefined;
}

/**
 * The piece after `insert` (an INSERT INTO mail_pieces … ON CONFLICT DO NOTHING of this piece), in
 * one statement: the row it wrote, or, when the piece was there already (a retried job), the row
 * that was. One round trip fewer for every card an event queues.
 */
export async function loadPieceInserted(
  db: Queryable,
  orgId: string,
  pieceId: string,
  insert: SQL,
): Promise<PieceRecord | undefined> {
  // The statement's snapshot cannot see the row its own INSERT writes: at most one side answers, and
  // neither when another job inserted the piece at the same instant (its insert committed after
  // this statement began): that job takes the piece on, and this one finds nothing to do.
  const row = await queryOne<Row>(
    db,
    sql`WITH inserted AS (${insert} RETURNING *)
        ${piecesWithContext(sql`(SELECT * FROM inserted UNION ALL SELECT * FROM mail_pieces WHERE org_id = ${orgId} AND id = ${pieceId})`)}`,
  );
  return row ? toRecord(row) : undefined;
}

/** For the operator API, which knows a piece by its id alone. */
export async function loadPieceById(db: Queryable, pieceId: string): Promise<PieceRecord | undefined> {
  const row = await queryOne<Row>(db, sql`${PIECE_SELECT} WHERE p.id = ${pieceId}`);
  return row ? toRecord(row) : undefined;
}

/** Who the card is for; its address block prints the verified (standardised) address when there is one. */
export const recipientOf = (piece: PieceRecord): CardRecipient => {
  const verified = piece.verifiedAddress;
  if (!verified) {
    return {
      recipientName: piece.recipientName,
      address: piece.address,
      street: piece.street,
      city: piece.city,
      state: piece.state,
      zip: piece.zip,
      properties: piece.properties,
    };
  }
  const street = [verified.line1, verified.line2].filter(Boolean).join(" ");
  return {
    recipientName: piece.recipientName,
    address: `${street}, ${verified.city}, ${verified.state} ${verified.zip}`,
    street,
    city: verified.city,
    state: verified.state,
    zip: verified.zip,
    properties: piece.properties,
  };
};

export const locationOf = (piece: PieceRecord): HomeLocation => ({
  address: piece.address,
  street: piece.street,
  city: piece.city,
  latitude: piece.latitude,
  longitude: piece.longitude,
});

/**
 * The address a provider mails to: the verified one (standardised where the verifier gave it), else
 * the piece's parts, else parsed from its one-line address.
 */
export function mailingAddressOf(piece: PieceRecord): MailingAddress {
  const name = piece.recipientName?.trim() || "Current Resident";
  const verified = piece.verifiedAddress;
  if (verified) {
    return {
      name,
      line1: verified.line1,
      ...(verified.line2 ? { line2: verified.line2 } : {}),
      city: verified.city,
      state: verified.state,
      zip: verified.zip,
    };
  }
  const parsed = parseUsAddress(piece.address);
  const zip = piece.zip ?? parsed.zip;
  // A record sent with a street and a ZIP alone printed a blank town: the ZIP's own place fills it.
  const zipPlace = /^\d{5}/.test(zip ?? "") ? zipPlaces.lookup(zip!.slice(0, 5)) : undefined;
  return {
    name,
    line1: piece.street ?? streetAsWritten(piece.address, parsed.street) ?? parsed.street ?? piece.address,
    // The ZIP's own spelling of the town the record names in any case ("springfield" prints Springfield).
    city: townAsZipSpellsIt(nonBlank(piece.city ?? parsed.city), zip) ?? zipPlace?.city ?? "",
    state: uspsStateCode(piece.state ?? parsed.state) ?? zipPlace?.state ?? "",
    zip,
  };
}
