import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Clock } from "../../clock.ts";
import type { Queryable } from "../../db/database.ts";
import { campaigns, leads, mailPieces, organizations, subscriptions } from "../../db/schema.ts";
import { normalizeAddress } from "../../domain/address.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { deliverLeadJob } from "../webhooks/deliver-lead-job.ts";
import { splitPieceAddress } from "./address-split.ts";
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
  address: string;
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  latitude: number | null;
  longitude: number | null;
  fields: LeadField[];
}

export async function loadLandingContext(db: Queryable, token: string): Promise<LandingContext | undefined> {
  // Tokens are URL-safe base64; anything else cannot match and skips the query.
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(token)) return undefined;
  const [found] = await db
    .select({ piece: mailPieces, orgName: organizations.name, campaignName: campaigns.name })
    .from(mailPieces)
    .innerJoin(organizations, eq(organizations.id, mailPieces.orgId))
    .leftJoin(campaigns, and(eq(campaigns.orgId, mailPieces.orgId), eq(campaigns.id, mailPieces.campaignId)))
    .where(eq(mailPieces.token, token));
  if (!found) return undefined;
  const { piece } = found;
  return {
    orgId: piece.orgId,
    orgName: found.orgName,
    pieceId: piece.id,
    campaignId: piece.campaignId,
    campaignName: found.campaignName ?? "",
    recipientName: piece.recipientName,
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

/**
 * Stores a landing-page lead and, in the same transaction, one delivery job per subscription:
 * once the lead is committed its deliveries are too, whatever happens to this process next.
 *
 * The same submission for the same piece (a double click, a resend after a lost answer) is the
 * same lead: the unique index on the submission's fingerprint (migrations/0080) turns the insert
 * into a no-op that returns the lead already captured, and no delivery is queued again. A
 * concurrent twin waits on the first insert and then finds it, so two posts at once make one lead.
 */
export async function saveLandingLead(
  deps: { db: Queryable; clock: Clock },
  context: LandingContext,
  submission: ValidLeadSubmission,
): Promise<string> {
  const now = deps.clock.now();
  const address = splitPieceAddress(context);
  return deps.db.transaction(async (tx) => {
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
        submissionFingerprint: submissionFingerprint(submission),
        createdAt: now,
      })
      .onConflictDoUpdate({
        target: [leads.orgId, leads.pieceId, leads.submissionFingerprint],
        targetWhere: sql`submission_fingerprint IS NOT NULL`,
        // A no-op update, so that RETURNING gives the existing row's id.
        set: { submissionFingerprint: sql`${leads}.submission_fingerprint` },
      })
      .returning({ id: leads.id, inserted: sql<boolean>`(xmax = 0)` });
    if (!saved!.inserted) return saved!.id;
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
    return saved!.id;
  });
}
