import { and, desc, eq, gt, lte, type SQL } from "drizzle-orm";
import type { Queryable } from "../db/database.ts";
import { campaigns, type LeadCustomField, leads, mailPieces } from "../db/schema.ts";
import { parseIsoDate } from "../domain/iso-date.ts";
import { AppError } from "../errors.ts";
import { type LeadField, listLeadFields } from "./lead-fields.ts";
import {
  flattenCustomFields,
  LANDING_PAGE_SOURCE_LABEL,
  type LeadView,
  leadViewColumns,
  toLeadView,
} from "./lead-view.ts";

export const POLL_LIMIT = 50;
export const SAMPLE_LEAD_ID = "00000000-0000-0000-0000-000000000000";

// An unencoded "+01:00" in a query string arrives as " 01:00": a space where the offset's sign was.
const DECODED_PLUS_OFFSET = /(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?) (\d{2}(?::?\d{2})?)$/;

export type TimeBound = "since" | "before";

/** 400 `Invalid since parameter` / `Invalid before parameter` (the route's style), saying why. */
export const invalidTimeBound = (bound: TimeBound, detail: string) =>
  new AppError(400, `invalid_${bound}`, `${bound}: ${detail}`);

/** Parses `since` or `before`; a malformed value is a 400 that says what is expected. */
export function parseTimeBound(bound: TimeBound, input: string | undefined): Date | undefined {
  if (input === undefined || input === "") return undefined;
  const parsed = parseIsoDate(input.trim().replace(DECODED_PLUS_OFFSET, "$1+$2"));
  if (!parsed) {
    throw invalidTimeBound(bound, `"${input}" is not an ISO-8601 timestamp (e.g. 2026-01-31T09:30:00Z)`);
  }
  return parsed.at;
}

/** `since`: strictly after; `before`: at or before (inclusive, so paging back never skips a lead that shares the boundary's millisecond; callers de-duplicate by id). */
export interface PollWindow {
  since?: Date | undefined;
  before?: Date | undefined;
}

/**
 * When the sample is dated: now, unless the window asks for later (a `since` ahead of the clock),
 * so the one sample an org without leads always gets still satisfies "strictly after since".
 * Undefined when the window holds no instant at all (`before` at or before `since`).
 */
function sampleDate(now: Date, { since, before }: PollWindow): Date | undefined {
  const earliest = since ? new Date(Math.max(now.getTime(), since.getTime() + 1)) : now;
  if (!before) return earliest;
  if (since && before.getTime() <= since.getTime()) return undefined;
  return earliest.getTime() <= before.getTime() ? earliest : before;
}

/**
 * What the sample answers in one of the org's own form fields: a choice field its first option, a
 * yes/no box "yes", a text field a sample answer. A flow maps every field from the sample before
 * the first real lead exists.
 */
function sampleAnswer(field: LeadField): LeadCustomField {
  const value =
    field.options.length > 0
      ? [field.options[0]!]
      : field.type === "checkbox"
        ? ["yes"]
        : [`Sample answer to ${field.label}`];
  return { field_id: field.field_id, field_label: field.label, type: field.type, value };
}

/** The example a newly connected integration sees until the first real lead arrives, with the org's form fields. */
export function sampleLead(createdAt: Date, formFields: readonly LeadField[] = []): LeadView {
  const customFields = formFields.map(sampleAnswer);
  return {
    id: SAMPLE_LEAD_ID,
    name: "Jane Sample",
    first_name: "Jane",
    last_name: "Sample",
    email: "jane.sample@example.com",
    phone: "+1 555 010 0199",
    address: "123 Main St, Springfield, IL 62704",
    street: "123 Main St",
    city: "Springfield",
    state: "IL",
    postal_code: "62704",
    country: "US",
    full_address: "123 Main St, Springfield, IL 62704",
    latitude: 39.7817,
    longitude: -89.6501,
    message: "This is a sample lead. Real landing-page leads replace it.",
    campaign_id: SAMPLE_LEAD_ID,
    campaign_name: "Sample campaign",
    source: LANDING_PAGE_SOURCE_LABEL,
    custom_fields: customFields,
    ...flattenCustomFields(customFields),
    created_at: createdAt.toISOString(),
    test: true,
  };
}

/** Landing-page leads newest first, at most 50, created strictly after `since`. */
export async function listRecentLeads(
  db: Queryable,
  orgId: string,
  window: PollWindow,
  now: Date,
): Promise<LeadView[]> {
  const { since, before } = window;
  const conditions: SQL[] = [eq(leads.orgId, orgId), eq(leads.source, "landing_page")];
  if (since) conditions.push(gt(leads.createdAt, since));
  if (before) conditions.push(lte(leads.createdAt, before));
  const rows = await db
    .select(leadViewColumns)
    .from(leads)
    .leftJoin(campaigns, and(eq(campaigns.orgId, leads.orgId), eq(campaigns.id, leads.campaignId)))
    .leftJoin(mailPieces, and(eq(mailPieces.orgId, leads.orgId), eq(mailPieces.id, leads.pieceId)))
    .where(and(...conditions))
    .orderBy(desc(leads.createdAt), desc(leads.id))
    .limit(POLL_LIMIT);
  if (rows.length > 0) return rows.map((row) => toLeadView(row.lead, row.campaignName, row.piece));
  if ((since || before) && (await hasAnyLandingLead(db, orgId))) return [];
  // No real lead at all: the sample shows the shape, dated inside the window asked for.
  const createdAt = sampleDate(now, window);
  return createdAt ? [sampleLead(createdAt, await listLeadFields(db, orgId))] : [];
}

async function hasAnyLandingLead(db: Queryable, orgId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: leads.id })
    .from(leads)
    .where(and(eq(leads.orgId, orgId), eq(leads.source, "landing_page")))
    .limit(1);
  return Boolean(row);
}
