import { randomUUID } from "node:crypto";
import { type Static, Type } from "@fastify/type-provider-typebox";
import { and, count, desc, eq, type SQL } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import { lockUntilCommit, type Queryable } from "../db/database.ts";
import { subscriptions } from "../db/schema.ts";
import { isUuid } from "../domain/uuid.ts";
import { AppError, invalidPayload, notFound } from "../errors.ts";
import { newSigningSecret } from "./signer.ts";
import { BlockedTargetError, type TargetGuard } from "./target-guard.ts";

export const LEAD_CREATED = "lead.created";
/** Deliveries fan out per subscription; a bound keeps one lead from becoming hundreds of POSTs. */
export const MAX_SUBSCRIPTIONS_PER_ORG = 20;

/** A subscription as returned by subscribe and rotate; the secret appears once, else null. */
export const Subscription = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    target_url: Type.String(),
    event: Type.String({ description: "Only lead.created." }),
    signing_secret: Type.Union([Type.String(), Type.Null()], {
      description: "Shown exactly once, when created or rotated; null on an idempotent re-subscribe.",
    }),
  },
  { title: "Subscription" },
);

export type SubscriptionView = Static<typeof Subscription>;

/**
 * How a caller names an existing subscription: by id, or by URL and event; null is an absent
 * field (typed clients send it).
 */
export interface SubscriptionRef {
  id?: string | null | undefined;
  target_url?: string | null | undefined;
  event?: string | null | undefined;
}

/** Failures of subscribe read "Failed to subscribe" (older error style) with a detail. */
const subscribeFailed = (detail: string) => new AppError(400, "subscribe_failed", detail);

/**
 * The longest stored target URL. Checked on the normalized form: the request's 2048 characters
 * can grow up to twelvefold once percent-encoded (a non-ASCII character becomes up to 12), and
 * the unique index on the URL refuses rows over about 2.7 KB.
 */
export const MAX_TARGET_URL_LENGTH = 2048;

/**
 * The form a target URL is stored, and looked up, in: normalized, without its #fragment (never
 * sent on the wire, so `…/leads#crm` and `…/leads` are one endpoint). Throws 422 when it is too
 * long to store.
 */
function storedForm(url: URL): string {
  const withoutFragment = new URL(url);
  withoutFragment.hash = "";
  const href = withoutFragment.href;
  if (href.length > MAX_TARGET_URL_LENGTH) {
    throw invalidPayload(
      `target_url: must NOT have more than ${MAX_TARGET_URL_LENGTH} characters once normalized (percent-encoded)`,
    );
  }
  return href;
}

/** The stored form of a URL a caller names; undefined when it does not parse (nothing can match). */
function canonicalUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  return storedForm(url);
}

const subscriptionNotFound = () => notFound("subscription not found");

const toView = (row: typeof subscriptions.$inferSelect) => ({
  id: row.id,
  target_url: row.targetUrl,
  event: row.event,
});

/**
 * The row a caller names (by id, or by URL and event) within its organization, as a condition.
 * Throws 400 for a malformed reference, 404 for one no row can match.
 */
function matching(orgId: string, sent: SubscriptionRef, sentIn: "query string" | "body"): SQL {
  // An empty value (`?id=`) is no identifier, not a subscription that cannot be found.
  const ref = {
    id: sent.id || undefined,
    target_url: sent.target_url || undefined,
    event: sent.event || undefined,
  };
  if (ref.event !== undefined && ref.event !== LEAD_CREATED) {
    throw new AppError(400, "invalid_payload", `event: only "${LEAD_CREATED}" is supported`);
  }
  if (ref.id !== undefined && ref.target_url !== undefined) {
    throw new AppError(400, "invalid_payload", "send either id or target_url, not both");
  }
  if (ref.id !== undefined) {
    // Another organization's id is indistinguishable from a missing one.
    if (!isUuid(ref.id)) throw subscriptionNotFound();
    return and(eq(subscriptions.orgId, orgId), eq(subscriptions.id, ref.id))!;
  }
  if (ref.target_url === undefined) {
    // A delete reads its query string only: an id sent in its body (as rotate takes it) is not seen.
    const how = sentIn === "query string" ? " in the query string (?id=… or ?target_url=…)" : "";
    throw new AppError(400, "invalid_payload", `send id or target_url${how}`);
  }
  const url = canonicalUrl(ref.target_url);
  if (url === undefined) throw subscriptionNotFound();
  return and(
    eq(subscriptions.orgId, orgId),
    eq(subscriptions.targetUrl, url),
    eq(subscriptions.event, ref.event ?? LEAD_CREATED),
  )!;
}

/** Held until the transaction ends: one subscribe of an org at a time (on every process). */
async function lockOrgSubscriptions(tx: Queryable, orgId: string): Promise<void> {
  await lockUntilCommit(tx, `subscriptions:${orgId}`);
}

async function countSubscriptions(tx: Queryable, orgId: string): Promise<number> {
  const [row] = await tx.select({ total: count() }).from(subscriptions).where(eq(subscriptions.orgId, orgId));
  return row?.total ?? 0;
}

/** Where a refused target's precise reason goes (the request's logger). */
export interface RefusalLog {
  info(fields: Record<string, unknown>, message: string): void;
}

export interface SubscriptionService {
  subscribe(
    orgId: string,
    input: { target_url: string; event?: string | null },
    log: RefusalLog,
  ): Promise<SubscriptionView>;
  /** Operator migration of old data: `signed: false` creates a legacy subscription without secret. */
  createForOperator(
    orgId: string,
    input: { target_url: string; signed: boolean },
    log: RefusalLog,
  ): Promise<SubscriptionView>;
  unsubscribe(orgId: string, ref: SubscriptionRef): Promise<SubscriptionView>;
  rotate(orgId: string, ref: SubscriptionRef): Promise<SubscriptionView>;
  list(
    orgId: string,
  ): Promise<(Omit<SubscriptionView, "signing_secret"> & { signed: boolean; created_at: string })[]>;
}

export function createSubscriptionService(deps: {
  db: Queryable;
  clock: Clock;
  guard: TargetGuard;
  /** The detail a refused target URL answers; by default the guard's caller reason. */
  refusalDetail?: (refusal: BlockedTargetError) => string;
  /** The detail when the org has as many subscriptions as it may; by default the API's words. */
  capReachedDetail?: (max: number) => string;
}): SubscriptionService {
  const { db, clock, guard } = deps;
  const refusalDetail = deps.refusalDetail ?? ((refusal: BlockedTargetError) => refusal.callerReason);
  const capReachedDetail =
    deps.capReachedDetail ?? ((max: number) => `an organization may have at most ${max} subscriptions`);

  const assertEvent = (event: string | null | undefined): string => {
    const value = event ?? LEAD_CREATED;
    if (value !== LEAD_CREATED) throw subscribeFailed(`event: only "${LEAD_CREATED}" is supported`);
    return value;
  };

  const guardedUrl = async (raw: string, log: RefusalLog): Promise<string> => {
    try {
      const url = guard.checkUrl(raw);
      const stored = storedForm(url);
      await guard.resolveAllowed(url.hostname);
      return stored;
    } catch (error) {
      if (!(error instanceof BlockedTargetError)) throw error;
      // The precise reason (which of "does not resolve" and "not public", and the address) is
      // the operator's, in the log; the caller reads the guard's caller reason.
      if (error.reason !== error.callerReason) log.info({ reason: error.reason }, "webhook target refused");
      throw subscribeFailed(refusalDetail(error));
    }
  };

  const create = (orgId: string, targetUrl: string, event: string, signed: boolean) =>
    db.transaction(async (tx) => {
      // Serializes this org's subscribes, so its count and its insert are one step under the cap.
      await lockOrgSubscriptions(tx, orgId);
      const existing = await findByUrl(tx, orgId, targetUrl, event);
      if (existing) return { ...existing, signing_secret: null };
      if ((await countSubscriptions(tx, orgId)) >= MAX_SUBSCRIPTIONS_PER_ORG) {
        throw subscribeFailed(capReachedDetail(MAX_SUBSCRIPTIONS_PER_ORG));
      }
      const secret = signed ? newSigningSecret() : null;
      const id = randomUUID();
      await tx
        .insert(subscriptions)
        .values({ orgId, id, targetUrl, event, signingSecret: secret, createdAt: clock.now() });
      return { id, target_url: targetUrl, event, signing_secret: secret };
    });

  const findByUrl = async (from: Queryable, orgId: string, targetUrl: string, event: string) => {
    const [row] = await from
      .select()
      .from(subscriptions)
      .where(
        and(
          eq(subscriptions.orgId, orgId),
          eq(subscriptions.targetUrl, targetUrl),
          eq(subscriptions.event, event),
        ),
      );
    return row ? toView(row) : undefined;
  };

  return {
    subscribe: async (orgId, input, log) => {
      const event = assertEvent(input.event);
      return create(orgId, await guardedUrl(input.target_url, log), event, true);
    },
    createForOperator: async (orgId, input, log) =>
      create(orgId, await guardedUrl(input.target_url, log), LEAD_CREATED, input.signed),
    unsubscribe: async (orgId, ref) => {
      // Only the request whose DELETE removed the row answers with it; a repeat finds nothing.
      const [removed] = await db
        .delete(subscriptions)
        .where(matching(orgId, ref, "query string"))
        .returning();
      if (!removed) throw subscriptionNotFound();
      return { ...toView(removed), signing_secret: null };
    },
    rotate: async (orgId, ref) => {
      const secret = newSigningSecret();
      const [rotated] = await db
        .update(subscriptions)
        .set({ signingSecret: secret })
        .where(matching(orgId, ref, "body"))
        .returning();
      if (!rotated) throw subscriptionNotFound();
      return { ...toView(rotated), signing_secret: secret };
    },
    list: async (orgId) => {
      const rows = await db
        .select()
        .from(subscriptions)
        .where(eq(subscriptions.orgId, orgId))
        .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id));
      return rows.map((row) => ({
        id: row.id,
        target_url: row.targetUrl,
        event: row.event,
        signed: row.signingSecret !== null,
        created_at: row.createdAt.toISOString(),
      }));
    },
  };
}
