import { randomBytes, randomUUID } from "node:crypto";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
import { campaigns, mailPieces, type PieceStatus } from "../db/schema.ts";
import { type AddressParts, normalizeAddress } from "../domain/address.ts";
import { MAX_CLOCK_LEAD_MS } from "../domain/iso-date.ts";
import { AppError, invalidPayload, notFound } from "../errors.ts";
import { dateFollowUps } from "./follow-ups.ts";

const TOKEN_BYTES = 18;
const TOKENS_PER_DRAW = 256;
let entropy = Buffer.alloc(0);
let entropyOffset = 0;

/**
 * 144 random bits, URL-safe: unguessable and unique (a unique index backs it). The bytes come
 * from the CSPRNG 256 tokens at a time, each byte used once (as Node's randomUUID does): one
 * synchronous draw per token cost ~5 µs on the events hot path.
 */
export function newLandingToken(): string {
  if (entropyOffset + TOKEN_BYTES > entropy.length) {
    entropy = randomBytes(TOKEN_BYTES * TOKENS_PER_DRAW);
    entropyOffset = 0;
  }
  const token = entropy.toString("base64url", entropyOffset, entropyOffset + TOKEN_BYTES);
  entropyOffset += TOKEN_BYTES;
  return token;
}

export const landingUrl = (publicBaseUrl: string, token: string) => `${publicBaseUrl}/l/${token}`;

export interface PieceView {
  id: string;
  status: PieceStatus;
  address: string;
  recipient_name: string | null;
  token: string;
  landing_url: string;
  mailed_at: string | null;
}

export interface CampaignView {
  id: string;
  name: string;
  automation_id: string | null;
  created_at: string;
  pieces: PieceView[];
}

/** Columns of a new piece; the caller supplies the campaign and status. */
export function newPiece(input: {
  orgId: string;
  campaignId: string;
  address: string;
  parts?: AddressParts;
  recipientName?: string | null;
  status: PieceStatus;
  mailedAt?: Date | null;
  properties?: Record<string, string>;
}): typeof mailPieces.$inferInsert {
  return {
    orgId: input.orgId,
    id: randomUUID(),
    campaignId: input.campaignId,
    status: input.status,
    recipientName: input.recipientName ?? null,
    address: input.address,
    street: input.parts?.street ?? null,
    city: input.parts?.city ?? null,
    state: input.parts?.state ?? null,
    zip: input.parts?.zip ?? null,
    normalizedAddress: normalizeAddress(input.address),
    token: newLandingToken(),
    properties: input.properties ?? {},
    mailedAt: input.mailedAt ?? null,
  };
}

export function toPieceView(row: typeof mailPieces.$inferSelect, publicBaseUrl: string): PieceView {
  return {
    id: row.id,
    status: row.status,
    address: row.address,
    recipient_name: row.recipientName,
    token: row.token,
    landing_url: landingUrl(publicBaseUrl, row.token),
    mailed_at: row.mailedAt?.toISOString() ?? null,
  };
}

/**
 * Mail already sent cannot be dated ahead of now (the grace events' occurred_at has): a future
 * mailed_at would hold the piece out of every attribution window until that day.
 */
export function assertNotFuture(mailedAt: Date, now: Date, field: string) {
  if (mailedAt.getTime() > now.getTime() + MAX_CLOCK_LEAD_MS) {
    throw invalidPayload(`${field}: must not be more than 24 hours in the future`);
  }
}

export async function listCampaigns(
  db: Queryable,
  orgId: string,
  publicBaseUrl: string,
): Promise<CampaignView[]> {
  const campaignRows = await db
    .select()
    .from(campaigns)
    .where(eq(campaigns.orgId, orgId))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id))
    .limit(500);
  if (campaignRows.length === 0) return [];
  const pieceRows = await db
    .select()
    .from(mailPieces)
    .where(
      and(
        eq(mailPieces.orgId, orgId),
        inArray(
          mailPieces.campaignId,
          campaignRows.map((row) => row.id),
        ),
      ),
    )
    .orderBy(desc(mailPieces.createdAt));
  return campaignRows.map((row) => ({
    id: row.id,
    name: row.name,
    automation_id: row.automationId,
    created_at: row.createdAt.toISOString(),
    pieces: pieceRows
      .filter((piece) => piece.campaignId === row.id)
      .map((piece) => toPieceView(piece, publicBaseUrl)),
  }));
}

/** What a print vendor's confirmation does: a queued piece becomes mailed. */
/**
 * Marks a piece mailed at `mailedAt`, or now. Marking an already mailed piece again without a
 * date keeps its date (a repeat must not move the start of its attribution window).
 */
export async function markPieceMailed(
  db: Queryable,
  pieceId: string,
  at: { mailedAt: Date | undefined; now: Date },
  publicBaseUrl: string,
) {
  const [current] = await db.select().from(mailPieces).where(eq(mailPieces.id, pieceId));
  if (!current) throw notFound("piece not found");
  if (current.status === "mailed" && at.mailedAt === undefined) return toPieceView(current, publicBaseUrl);
  if (at.mailedAt) assertNotFuture(at.mailedAt, at.now, "mailed_at");
  const mailedAt = at.mailedAt ?? at.now;
  if (current.status !== "queued" && current.status !== "mailed") {
    throw new AppError(
      409,
      "invalid_state",
      `piece is ${current.status}, only a queued piece can be marked mailed`,
    );
  }
  const [row] = await db
    .update(mailPieces)
    .set({ status: "mailed", mailedAt })
    .where(and(eq(mailPieces.orgId, current.orgId), eq(mailPieces.id, pieceId)))
    .returning();
  // Its follow-ups (if the pipeline scheduled any) count from this mail date.
  await dateFollowUps(
    db,
    { orgId: current.orgId, id: pieceId },
    mailedAt,
    at.now,
    current.status === "queued",
  );
  return toPieceView(row!, publicBaseUrl);
}
