import { and, eq } from "drizzle-orm";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { retryWhileUnavailable } from "../db/retry-while-unavailable.ts";
import { deliveries, subscriptions } from "../db/schema.ts";
import type { Metrics } from "../http/metrics.ts";
import { handleJob, type RegisteredJob } from "../jobs/job-kind.ts";
import { deliverLeadJob } from "../jobs/kinds.ts";
import { listLeadFields } from "../leads/lead-fields.ts";
import { loadLeadView, toDeliveryPayload } from "../leads/lead-view.ts";
import { SAMPLE_LEAD_ID, sampleLead } from "../leads/polling.ts";
import type { DeliveryClient } from "./delivery-client.ts";
import { signatureHeaders } from "./signer.ts";

/**
 * The delivery's record waits out an outage until this long before the job's 60 s lock ends: one
 * more try may take the pool's 10 s connect timeout, and the lock must outlive it.
 */
const RECORD_MARGIN_MS = 15_000;

export interface DeliverLeadDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  client: DeliveryClient;
  metrics?: Pick<Metrics, "webhookDeliveries">;
}

export function deliverLeadHandler(deps: DeliverLeadDeps): RegisteredJob {
  return handleJob(deliverLeadJob, async (payload, context) => {
    const startedAt = Date.now();
    const { org_id: orgId, lead_id: leadId, subscription_id: subscriptionId } = payload;
    const log = deps.logger.child({ jobId: context.jobId, orgId, leadId, subscriptionId });
    const [alreadySent] = await deps.db
      .select({ id: deliveries.id })
      .from(deliveries)
      .where(and(eq(deliveries.orgId, orgId), eq(deliveries.id, context.jobId)));
    if (alreadySent) return;
    const [subscription] = await deps.db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.orgId, orgId), eq(subscriptions.id, subscriptionId)));
    if (!subscription) {
      log.info("subscription was removed before delivery; nothing sent");
      return;
    }
    // A test delivery (the app's "Send test") carries the sample lead's id: the sample, dated now
    // and marked `test: true`, takes every step of a real delivery (guard, signature, record).
    const lead =
      leadId === SAMPLE_LEAD_ID
        ? sampleLead(deps.clock.now(), await listLeadFields(deps.db, orgId))
        : await loadLeadView(deps.db, orgId, leadId);
    if (!lead) {
      log.warn("lead no longer exists; nothing sent");
      return;
    }

    const body = Buffer.from(JSON.stringify(toDeliveryPayload(lead)), "utf8");
    // The secret is read now, not at capture: a rotation applies from the next delivery on.
    const secret = subscription.signingSecret;
    const headers = secret
      ? signatureHeaders(secret, body, Math.floor(deps.clock.now().getTime() / 1000))
      : {};
    const result = await deps.client.post(subscription.targetUrl, body, headers);

    const record = {
      orgId,
      id: context.jobId,
      leadId,
      subscriptionId,
      targetUrl: subscription.targetUrl,
      signed: Boolean(secret),
      outcome: result.outcome,
      statusCode: result.outcome === "attempted" ? result.statusCode : null,
      error: result.outcome === "attempted" ? null : result.error,
      createdAt: deps.clock.now(),
    };
    const targetUrl = loggableUrl(record.targetUrl);
    deps.metrics?.webhookDeliveries.inc({ outcome: deliveryOutcome(result) });
    if (result.outcome === "attempted" && result.statusCode >= 200 && result.statusCode < 300) {
      log.info({ statusCode: result.statusCode, targetUrl }, "lead delivered");
    } else if (result.outcome === "attempted") {
      // Not retried (spec: the status is not inspected), so the operator should see it: a receiver
      // answering 401 usually verifies with another subscription's secret.
      log.warn(
        { statusCode: result.statusCode, targetUrl },
        "lead delivered; the receiver refused it (not resent)",
      );
    } else {
      log.warn({ outcome: result.outcome, error: result.error, targetUrl }, "lead delivery not completed");
    }
    // The row is what stops a re-run of this job from sending again: a short outage is waited
    // out (well inside the job's 60 s lock) rather than leaving the job to be re-run and re-sent.
    try {
      await retryWhileUnavailable(() => deps.db.insert(deliveries).values(record).onConflictDoNothing(), {
        budgetMs: deliverLeadJob.timeoutSeconds * 1000 - RECORD_MARGIN_MS - (Date.now() - startedAt),
        signal: context.signal,
        onRetry: (error, attempt) =>
          log.warn({ err: error, attempt }, "database unavailable; retrying the delivery record"),
      });
    } catch (error) {
      // The request went out; failing the job now would only send it again.
      log.error({ err: error, delivery: { ...record, targetUrl } }, "could not record a delivery attempt");
    }
  });
}

/**
 * Receivers carry secrets in their URLs: Zapier and Make catch hooks in the path
 * (`/hooks/catch/123/abcXYZ/`), some in the first path segment itself (an all-letter token reads
 * like a word), n8n and others in the query. Logs keep the origin only; the line's
 * `subscriptionId` says which URL it was, and the operator's delivery list shows the whole URL.
 */
export function loggableUrl(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "[unparsable url]";
  }
}

function deliveryOutcome(result: { outcome: string; statusCode?: number }): string {
  if (result.outcome !== "attempted") return "failed";
  const status = result.statusCode ?? 0;
  return status >= 200 && status < 300 ? "delivered" : "refused";
}
