import type { Logger } from "pino";
import { type Queryable, queryRows, sql } from "../db/database.ts";
import { handleJob, type RegisteredJob } from "../jobs/job-kind.ts";
import { capNoticeJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import type { Mailer } from "../mail/mailer.ts";
import { loadDisplayName } from "../orgs/display-name.ts";

/**
 * Inside the transaction that caps a piece: the first piece a cap holds in a month enqueues one
 * email per owner (a failed send retries that owner alone, never re-mails the others); later
 * pieces find the notice claimed. The month's counter row may not exist yet (a cap of 0, or one card
 * costing more than the money cap, holds the month's first card, and that card's count was rolled
 * back with it): the claim creates it.
 */
export async function claimCapNotice(
  tx: Queryable,
  input: { orgId: string; scope: string; month: string; reason: string; now: Date },
): Promise<void> {
  const claimed = await queryRows<{ org_id: string }>(
    tx,
    sql`INSERT INTO mail_cap_usage AS u (org_id, automation_id, month, owners_notified_at)
        VALUES (${input.orgId}::uuid, ${input.scope}::uuid, ${input.month}::date, ${input.now.toISOString()}::timestamptz)
        ON CONFLICT (org_id, automation_id, month) DO UPDATE SET owners_notified_at = excluded.owners_notified_at
          WHERE u.owners_notified_at IS NULL
        RETURNING org_id`,
  );
  if (claimed.length === 0) return;
  const owners = await queryRows<{ user_id: string }>(
    tx,
    sql`SELECT user_id::text FROM org_members WHERE org_id = ${input.orgId}::uuid AND role = 'owner'
        ORDER BY user_id`,
  );
  for (const owner of owners) {
    await enqueueJob(
      tx,
      capNoticeJob,
      { org_id: input.orgId, reason: input.reason, user_id: owner.user_id },
      { orgId: input.orgId, now: input.now },
    );
  }
}

/** The owner the job names, if still an owner; a job queued before per-owner jobs names none: all. */
function ownersToNotify(db: Queryable, orgId: string, userId: string | undefined) {
  return queryRows<{ email: string }>(
    db,
    sql`SELECT u.email FROM org_members m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = ${orgId}::uuid AND m.role = 'owner'
          AND (${userId ?? null}::text IS NULL OR m.user_id::text = ${userId ?? null}::text)
        ORDER BY u.email`,
  );
}

export function capNoticeHandler(deps: {
  db: Queryable;
  logger: Logger;
  mailer: Mailer;
  publicBaseUrl: string;
}): RegisteredJob {
  return handleJob(capNoticeJob, async (payload) => {
    const name = await loadDisplayName(deps.db, payload.org_id);
    const owners = await ownersToNotify(deps.db, payload.org_id, payload.user_id);
    const link = `${deps.publicBaseUrl}/app/`;
    for (const owner of owners) {
      await deps.mailer.send({
        to: owner.email,
        subject: `Mail paused: a monthly cap of ${name ?? "your organization"} is reached`,
        text: [
          `Cards are being held: ${payload.reason}.`,
          "",
          "They are mailed, oldest first, when the cap is raised or the new month begins. See them in Porchlight:",
          link,
        ].join("\n"),
        links: [link],
      });
    }
    deps.logger.info({ orgId: payload.org_id, owners: owners.length }, "cap notice sent");
  });
}
