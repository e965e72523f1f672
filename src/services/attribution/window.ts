import { parseIsoDate } from "../../domain/iso-date.ts";
import { invalidPayload } from "../../errors.ts";

/** Last-touch attribution looks back this many days from the deal or lead date (spec: Limits). */
export const ATTRIBUTION_WINDOW_DAYS = 180;

const DAY_MS = 86_400_000;

/** A deal's close date or a lead's creation time; a date without a time means that whole UTC day. */
export interface ReferenceDate {
  at: Date;
  dateOnly: boolean;
}

export interface AttributionWindow {
  from: Date;
  to: Date;
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
 * Pieces mailed in [reference − 180 days, reference] are candidates. With a date-only reference
 * both ends are whole UTC days: a piece mailed on day 180 before is in, on day 181 out, and
 * one mailed later on the close day itself still counts.
 */
export function attributionWindow(reference: ReferenceDate): AttributionWindow {
  const start = reference.at.getTime();
  const to = reference.dateOnly ? new Date(start + DAY_MS - 1) : reference.at;
  return { from: new Date(start - ATTRIBUTION_WINDOW_DAYS * DAY_MS), to };
}

/** The UTC calendar day of a reference date (the close date of the idempotency key). */
export const utcDay = (reference: ReferenceDate) => reference.at.toISOString().slice(0, 10);
