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
