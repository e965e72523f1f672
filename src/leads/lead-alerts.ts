import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { handleJob, type RegisteredJob } from "../jobs/job-kind.ts";
import { leadAlertJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import type { Mailer, MailMessage } from "../mail/mailer.ts";
import { loadDisplayName } from "../orgs/display-name.ts";

/** A member's own choice, else on for owners and off for members (issue 39: a new owner must not miss leads). */
const WANTS_ALERTS = sql`COALESCE(p.enabled, m.role = 'owner')`;
const MEMBERS_AND_CHOICES = sql`org_members m
  LEFT JOIN lead_alert_preferences p ON p.org_id = m.org_id AND p.user_id = m.user_id`;

/** Whether a member gets lead alerts; the job's recipients and whether a lead queues one read the same rule. */
export async function getLeadAlertPreference(db: Queryable, orgId: string, userId: string): Promise<boolean> {
  const row = await queryOne<{ enabled: boolean }>(
    db,
    sql`SELECT ${WANTS_ALERTS} AS enabled FROM ${MEMBERS_AND_CHOICES}
        WHERE m.org_id = ${orgId}::uuid AND m.user_id = ${userId}`,
  );
  return Boolean(row?.enabled);
}

/**
 * Queues the alert of a new landing-page lead, in the caller's transaction, when any member of the
 * organization wants alerts. Only a newly inserted lead reaches it, so a lead is alerted once.
 */
export async function enqueueLeadAlert(
  db: Queryable,
  lead: { orgId: string; leadId: string },
  now: Date,
): Promise<void> {
  const wanted = await queryOne<{ any: boolean }>(
    db,
    sql`SELECT EXISTS (SELECT 1 FROM ${MEMBERS_AND_CHOICES} WHERE m.org_id = ${lead.orgId}::uuid AND ${WANTS_ALERTS}) AS any`,
  );
  if (!wanted?.any) return;
  await enqueueJob(
    db,
    leadAlertJob,
    { org_id: lead.orgId, lead_id: lead.leadId },
    { orgId: lead.orgId, now },
  );
}

export async function setLeadAlertPreference(
  db: Queryable,
  input: { orgId: string; userId: string; enabled: boolean; now: Date },
): Promise<void> {
  await db.execute(
    sql`INSERT INTO lead_alert_preferences (org_id, user_id, enabled, updated_at)
        VALUES (${input.orgId}::uuid, ${input.userId}, ${input.enabled}, ${input.now.toISOString()}::timestamptz)
        ON CONFLICT (org_id, user_id) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = EXCLUDED.updated_at`,
  );
}

interface AlertLead {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  message: string;
  full_address: string;
  campaign_name: string | null;
}

/**
 * The alert a landing-page lead sends. Whoever holds a card's QR link can type anything into its
 * form, and the mail comes from the service's own address: the visitor's words never make the
 * subject or a sentence of the service's (a security walk typed "Porchlight Security: verify your
 * account at https://…" as a last name). The subject names the home the card went to, the
 * contractor's own data; the visitor's fields follow under a line saying whose words they are.
 */
export function leadAlertMessage(input: {
  to: string;
  lead: AlertLead;
  leadUrl: string;
  /** The business the card was mailed for (display-name.ts). */
  businessName: string;
}): MailMessage {
  const { lead } = input;
  const name = `${lead.first_name} ${lead.last_name}`.trim();
  const lines = [
    // "a card from …", not "a … card": a business named "Acme" read "a Acme card".
    `A card from ${input.businessName} was answered on its landing page.`,
    // A campaign's name carries its CRM record in brackets: on a line of its own, not nested in the sentence's.
    ...(lead.campaign_name ? [`Card: ${lead.campaign_name}`] : []),
    ...(lead.full_address ? [`Mailed to: ${lead.full_address}`] : []),
    "",
    "What the visitor typed on the form (their words, not Porchlight's):",
    ...(name ? [`Name: ${name}`] : []),
    ...(lead.email ? [`Email: ${lead.email}`] : []),
    ...(lead.phone ? [`Phone: ${lead.phone}`] : []),
    ...(lead.message ? ["Message:", lead.message] : []),
    "",
    "See the lead in Porchlight:",
    input.leadUrl,
    "",
    "You get this email because lead alerts are on for you (owners get them unless they turn them off); turn them off in Settings, under Your account.",
  ];
  return {
    to: input.to,
    subject: lead.full_address
      ? `New lead for ${input.businessName}: ${lead.full_address}`
      : `New lead for ${input.businessName}`,
    text: lines.join("\n"),
    links: [input.leadUrl],
  };
}

export interface LeadAlertDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  mailer: Mailer;
  publicBaseUrl: string;
}

/**
 * Emails the lead to every current member who wants alerts (their choice; owners by default). Each send is claimed first (a row in
 * lead_alert_sends): a retry or a second worker finds it claimed and skips that member. A send
 * that fails gives its claim back and fails the job, which retries the members not yet sent.
 */
export function leadAlertHandler(deps: LeadAlertDeps): RegisteredJob {
  return handleJob(leadAlertJob, async ({ org_id: orgId, lead_id: leadId }, context) => {
    const lead = await queryOne<AlertLead>(
      deps.db,
      sql`SELECT l.id, l.first_name, l.last_name, l.email, l.phone, l.message, l.full_address, c.name AS campaign_name
          FROM leads l LEFT JOIN campaigns c ON c.org_id = l.org_id AND c.id = l.campaign_id
          WHERE l.org_id = ${orgId}::uuid AND l.id = ${leadId}::uuid`,
    );
    if (!lead) return;
    const recipients = await queryRows<{ user_id: string; email: string }>(
      deps.db,
      sql`SELECT u.id AS user_id, u.email FROM ${MEMBERS_AND_CHOICES} JOIN users u ON u.id = m.user_id
          WHERE m.org_id = ${orgId}::uuid AND ${WANTS_ALERTS} ORDER BY u.id`,
    );
    const leadUrl = `${deps.publicBaseUrl}/app/leads/${lead.id}`;
    const businessName = (await loadDisplayName(deps.db, orgId)) ?? "your business";
    let failure: unknown;
    for (const recipient of recipients) {
      const claimed = await queryRows<{ user_id: string }>(
        deps.db,
        sql`INSERT INTO lead_alert_sends (org_id, lead_id, user_id, sent_at)
            VALUES (${orgId}::uuid, ${leadId}::uuid, ${recipient.user_id}, ${deps.clock.now().toISOString()}::timestamptz)
            ON CONFLICT DO NOTHING RETURNING user_id`,
      );
      if (claimed.length === 0) continue;
      try {
        await deps.mailer.send(leadAlertMessage({ to: recipient.email, lead, leadUrl, businessName }));
      } catch (error) {
        failure = error;
        deps.logger.warn({ jobId: context.jobId, orgId, leadId, err: error }, "lead alert not sent");
        await deps.db.execute(
          sql`DELETE FROM lead_alert_sends
              WHERE org_id = ${orgId}::uuid AND lead_id = ${leadId}::uuid AND user_id = ${recipient.user_id}`,
        );
      }
    }
    if (failure) throw failure;
  });
}
