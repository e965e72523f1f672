import { randomUUID } from "node:crypto";
import { and, desc, eq, gt, sql } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import { lockUntilCommit, type Queryable } from "../db/database.ts";
import { campaigns, leads, mailPieces, organizations, subscriptions } from "../db/schema.ts";
import { normalizeAddress } from "../domain/address.ts";
import { deliverLeadJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { stopSequenceOnLead } from "../pieces/follow-ups.ts";
import { hasOpenLandingPage } from "../pieces/landing-page-lifetime.ts";
import { splitPieceAddress } from "./address-split.ts";
import { enqueueLeadAlert } from "./lead-alerts.ts";
import { type LeadField, listLeadFields } from "./lead-fields.ts";
import { submissionFingerprint, type ValidLeadSubmission } from "./submission.ts";

/** Everything a landing page shows and a submission needs, found by the piece's token. */
export interface LandingContext {
  orgId: string;
  orgName: string;
  pieceId: string;
  campaignId: string;
  campaignName: string;
  recipientName: string | null;
  /** What the page greets: the recipient's first name only (null: "Hello"). */
  firstName: string | null;
  /** What the page shows of the address: the street line only, never the city, state or ZIP. */
  streetLine: string;
  address: string;
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  latitude: number | null;
  longitude: number | null;
  fields: LeadField[];
}

/** How long a page lives, and how many new leads one page may bring in an hour. */
export interface LandingPolicy {
  /** A page is not found this many days after its piece was mailed (LANDING_PAGE_TTL_DAYS). */
  ttlDays: number;
  /** New leads one page may capture in any hour (LANDING_LEADS_PER_TOKEN_PER_HOUR). */
  leadsPerHour: number;
}

const NOT_A_NAME = /^(?:current|resident|homeowner|occupant|the|mr|mrs|ms|miss|mx|dr)\.?$/i;

/** "Homer Simpson" → "Homer"; "Dr. Julius Hibbert" → "Julius"; "Current Resident" → null. */
export function firstNameOf(recipientName: string | null): string | null {
  const words = (recipientName ?? "").trim().split(/\s+/).filter(Boolean);
  const first = words.find((word) => !NOT_A_NAME.test(word));
  if (!first || words.some((word) => /^(?:resident|homeowner|occupant)$/i.test(word))) return null;
  return first.replace(/,$/, "");
}

/**
 * The page of a token, or undefined when there is none: an unknown token, a piece that was never
 * mailed, or a page past its lifetime all look alike to the visitor.
 */
export async function loadLandingContext(
  db: Queryable,
  token: string,
  at: { now: Date; ttlDays: number },
): Promise<LandingContext | undefined> {
  // Tokens are URL-safe base64; anything else cannot match and skips the query.
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(token)) return undefined;
  const [found] = await db
    .select({ piece: mailPieces, orgName: organizations.name, campaignName: campaigns.name })
    .from(mailPieces)
    .innerJoin(organizations, eq(organizations.id, mailPieces.orgId))
    .leftJoin(campaigns, and(eq(campaigns.orgId, mailPieces.orgId), eq(campaigns.id, mailPieces.campaignId)))
    .where(eq(mailPieces.token, token));
  if (!found || !hasOpenLandingPage(found.piece, at.now, at.ttlDays)) return undefined;
  const { piece } = found;
  return {
    orgId: piece.orgId,
    orgName: found.orgName,
    pieceId: piece.id,
    campaignId: piece.campaignId,
    campaignName: found.campaignName ?? "",
    recipientName: piece.recipientName,
    firstName: firstNameOf(piece.recipientName),
    streetLine: splitPieceAddress(piece).street,
    address: piece.address,
    street: piece.street,
    city: piece.city,
    state: piece.state,
    zip: piece.zip,
    latitude: piece.latitude,
    longitude: piece.longitude,
    fields: await listLeadFields(db, piece.orgId),
  };
}

/** A lead captured (or the one already captured for the same submission), or the page's cap reached. */
export type LandingLeadOutcome =
  | { captured: true; leadId: string }
  | { captured: false; retryAfterSeconds: number };

const HOUR_MS = 3_600_000;

/**
 * Stores a landing-page lead and, in the same transaction, one delivery job per subscription:
 * once the lead is committed its deliveries are too, whatever happens to this process next.
 *
 * The same submission for the same piece (a double click, a resend after a lost answer) is the
 * same lead: the unique index on the submission's fingerprint (migrations/0080) turns the insert
 * into a no-op that returns the lead already captured, and no delivery is queued again. A
 * concurrent twin waits on the first insert and then finds it, so two posts at once make one lead.
 *
 * One page brings at most `leadsPerHour` new leads in any hour, so a leaked URL cannot flood the
 * contractor's CRM. The count is read from the leads table under a lock, so it holds across every
 * API process (and on PGlite and PostgreSQL alike); past it nothing is stored and nothing delivered.
 *
 * The lock is the organization's, held to the commit, and the lead is stamped under it, later than
 * the org's latest lead by at least a millisecond: an org's landing-page leads become visible in
 * the order of their `created_at`, one per millisecond. So a poller's cursor (`since` = the newest
 * `created_at` it saw) never passes a lead that commits afterwards. Stamped before the lock, a lead
 * that waited (on another insert, on a slow commit) committed under an earlier time than leads
 * already polled, and `since` skipped it for good.
 */
export async function saveLandingLead(
  deps: { db: Queryable; clock: Clock; leadsPerHour: number },
  context: LandingContext,
  submission: ValidLeadSubmission,
): Promise<LandingLeadOutcome> {
  const now = deps.clock.now();
  const address = splitPieceAddress(context);
  const fingerprint = submissionFingerprint(submission);
  return deps.db.transaction(async (tx): Promise<LandingLeadOutcome> => {
    await lockUntilCommit(tx, `landing-leads:${context.orgId}`);
    const [same] = await tx
      .select({ id: leads.id })
      .from(leads)
      .where(
        and(
          eq(leads.orgId, context.orgId),
          eq(leads.pieceId, context.pieceId),
          eq(leads.submissionFingerprint, fingerprint),
        ),
      );
    if (same) return { captured: true, leadId: same.id };
    const recent = await tx
      .select({ createdAt: leads.createdAt })
      .from(leads)
      .where(
        and(
          eq(leads.orgId, context.orgId),
          eq(leads.pieceId, context.pieceId),
          eq(leads.source, "landing_page"),
          gt(leads.createdAt, new Date(now.getTime() - HOUR_MS)),
        ),
      )
      .orderBy(leads.createdAt);
    if (recent.length >= deps.leadsPerHour) {
      const freesAt = recent[recent.length - deps.leadsPerHour]!.createdAt.getTime() + HOUR_MS;
      return { captured: false, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)) };
    }
    const createdAt = await nextLeadStamp(tx, context.orgId, deps.clock.now());
    const [saved] = await tx
      .insert(leads)
      .values({
        orgId: context.orgId,
        id: randomUUID(),
        source: "landing_page",
        campaignId: context.campaignId,
        pieceId: context.pieceId,
        firstName: submission.firstName,
        lastName: submission.lastName,
        email: submission.email,
        phone: submission.phone,
        message: submission.message,
        street: address.street,
        city: address.city,
        state: address.state,
        postalCode: address.postal_code,
        country: address.country,
        fullAddress: address.full_address,
        normalizedAddress: normalizeAddress(context.address),
        latitude: context.latitude,
        longitude: context.longitude,
        customFields: submission.customFields,
        attributionType: "direct",
        submissionFingerprint: fingerprint,
        createdAt,
      })
      .onConflictDoUpdate({
        target: [leads.orgId, leads.pieceId, leads.submissionFingerprint],
        targetWhere: sql`submission_fingerprint IS NOT NULL`,
        // A no-op update, so that RETURNING gives the existing row's id.
        set: { submissionFingerprint: sql`${leads}.submission_fingerprint` },
      })
      .returning({ id: leads.id, inserted: sql<boolean>`(xmax = 0)` });
    if (!saved!.inserted) return { captured: true, leadId: saved!.id };
    // The home answered: the sequence's follow-ups stop in the lead's own transaction.
    const name = `${submission.firstName} ${submission.lastName}`.trim();
    await stopSequenceOnLead(tx, { orgId: context.orgId, pieceId: context.pieceId, name }, now);
    const targets = await tx
      .select({ id: subscriptions.id })
      .from(subscriptions)
      .where(and(eq(subscriptions.orgId, context.orgId), eq(subscriptions.event, "lead.created")));
    for (const target of targets) {
      await enqueueJob(
        tx,
        deliverLeadJob,
        { org_id: context.orgId, lead_id: saved!.id, subscription_id: target.id },
        { orgId: context.orgId, now },
      );
    }
    await enqueueLeadAlert(tx, { orgId: context.orgId, leadId: saved!.id }, now);
    return { captured: true, leadId: saved!.id };
  });
}

/** The clock, or a millisecond after the org's latest landing-page lead when the clock is not past it. */
async function nextLeadStamp(tx: Queryable, orgId: string, now: Date): Promise<Date> {
  const [latest] = await tx
    .select({ createdAt: leads.createdAt })
    .from(leads)
    .where(and(eq(leads.orgId, orgId), eq(leads.source, "landing_page")))
    .orderBy(desc(leads.createdAt))
    .limit(1);
  const after = latest ? latest.createdAt.getTime() + 1 : 0;
  return new Date(Math.max(now.getTime(), after));
}
