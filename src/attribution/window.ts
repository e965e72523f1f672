import { parseIsoDate } from "../domain/iso-date.ts";
import { invalidPayload } from "../errors.ts";

/** Last-touch attribution looks back this many days from the deal or lead date (spec: Limits). */
export const ATTRIBUTION_WINDOW_DAYS = 180;

const DAY_MS = 86_400_000;

/** A deal's close date or a lead's creation time; a date without a time means that whole UTC day. */
export interface ReferenceDate {
  at: Date;
  dateOnly: boolean;
}

/** Pieces mailed in [from, until) are candidates. */
export interface AttributionWindow {
  from: Date;
  until: Date;
}

/**
 * Reads an ISO-8601 date (`2026-05-01`) or date-time; a date-time without an offset is UTC.
 * Anything else is a 422 naming the field.
 */
export function parseReferenceDate(value: string, field: string): ReferenceDate {
  const parsed = parseIsoDate(value);
  if (!parsed) throw invalidPayload(`${field}: must be an ISO-8601 date or date-time`);
  return { at: parsed.at, dateOnly: parsed.dateOnly };
}

export const referenceNow = (now: Date): ReferenceDate => ({ at: now, dateOnly: false });

/** How far a close date may lead the clock and still be read as it is: a day, for time zones (as occurred_at). */
const CLOSE_DATE_LEAD_MS = DAY_MS;

/**
 * What a won deal is matched against: its close date, or now when that is more than a day ahead. A
 * close date far ahead (HubSpot's forecast `closedate` nobody updated at the win, a year typed 2030)
 * matched no mailing and lost the revenue; the deal is stored with the date sent, and the home
 * becomes a customer either way (spec).
 */
export const matchingReference = (reference: ReferenceDate, now: Date): ReferenceDate =>
  reference.at.getTime() > now.getTime() + CLOSE_DATE_LEAD_MS ? referenceNow(now) : reference;

/**
 * The window counts UTC calendar days, however the reference was sent (a date, a date-time, or
 * now): it opens at the start of the UTC day 180 days before the reference's day, so a piece
 * mailed on day 180 is in at any hour and one on day 181 is out. It closes after the reference:
 * a date-only reference means its whole UTC day. Both ends are plain instants, so matching stays
 * a range probe on the (org_id, normalized_address, mailed_at) index.
 */
export function attributionWindow(reference: ReferenceDate): AttributionWindow {
  const at = reference.at.getTime();
  const day = Math.floor(at / DAY_MS) * DAY_MS;
  // Dates the API reads carry milliseconds at most: the reference's own millisecond is in.
  const until = reference.dateOnly ? day + DAY_MS : at + 1;
  return { from: new Date(day - ATTRIBUTION_WINDOW_DAYS * DAY_MS), until: new Date(until) };
}

/** The UTC calendar day of a reference date (the close date of the idempotency key). */
export const utcDay = (reference: ReferenceDate) => reference.at.toISOString().slice(0, 10);
