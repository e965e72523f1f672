/** How the app writes figures and times for a person: one place, so every screen says them alike. */

const WHOLE_DOLLARS = new Intl.NumberFormat(undefined, {
  style: "currency",
  currency: "USD",
  maximumFractionDigits: 0,
});
const DOLLARS_AND_CENTS = new Intl.NumberFormat(undefined, { style: "currency", currency: "USD" });

/** Whole dollars for totals and reports ("$12,400"); a dash when there is no figure. */
export const money = (amount: number | null) => (amount === null ? "—" : WHOLE_DOLLARS.format(amount));

/** Dollars and cents for one deal or one card's cost ("$12,400.50"); a dash when there is none. */
export const exactMoney = (amount: number | null) =>
  amount === null ? "—" : DOLLARS_AND_CENTS.format(amount);

/**
 * Return on spend as dollars back for each dollar the cards cost ("$7,191 back per $1",
 * "$2.50 back per $1"), never a bare ratio like "7191.01×"; a dash without a cost.
 */
export const returnOnSpend = (ratio: number | null) =>
  ratio === null
    ? "—"
    : `${ratio >= 10 ? WHOLE_DOLLARS.format(ratio) : DOLLARS_AND_CENTS.format(ratio)} back per $1`;

const FEET_PER_METER = 3.28084;
const FEET_PER_MILE = 5280;

/** Feet from the API's meters, whole unless `round` is false. */
export const feetFromMeters = (meters: number, round = true) =>
  round ? Math.round(meters * FEET_PER_METER) : meters * FEET_PER_METER;

/** Whole meters (the API's unit) from feet a person typed. */
export const metersFromFeet = (feet: number) => Math.round(feet / FEET_PER_METER);

/** A distance the API gives in meters, as a US reader says it: "984 ft", "1.2 mi" from a mile on. */
export const distance = (meters: number) => {
  const feet = meters * FEET_PER_METER;
  return feet < FEET_PER_MILE
    ? `${Math.round(feet).toLocaleString("en-US")} ft`
    : `${(feet / FEET_PER_MILE).toLocaleString("en-US", { maximumFractionDigits: 1 })} mi`;
};

/** A moment in the reader's own time zone and locale; a dash when it has not happened. */
export const formatDate = (value: string | null) => (value ? new Date(value).toLocaleString() : "—");

/** A chart's month label ("YYYY-MM…"): "Jun"; the first bar and each January with the year ("Jan 2026"). */
export function chartMonth(month: string, index: number): string {
  const date = new Date(`${month.slice(0, 7)}-01T00:00:00Z`);
  const withYear = index === 0 || date.getUTCMonth() === 0;
  return date.toLocaleDateString("en-US", {
    month: "short",
    ...(withYear ? { year: "numeric" } : {}),
    timeZone: "UTC",
  });
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/** A moment as the server writes it into a card's reason: "Fri, Nov 27, 2026, 01:28 UTC" (mail-safety/words.ts). */
const SERVER_MINUTE =
  /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), ([A-Z][a-z]{2}) (\d{1,2}), (\d{4}), (\d{2}):(\d{2}) UTC\b/g;
/** A raw ISO-8601 timestamp. */
const ISO_MOMENT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

/**
 * A card's reason with its moments written like every other date of the app (formatDate, the
 * reader's own time zone) instead of the server's UTC ("held … until Fri, Nov 27, 2026, 01:28 UTC").
 */
export function readableReason(reason: string): string {
  return reason
    .replace(
      SERVER_MINUTE,
      (text, month: string, day: string, year: string, hour: string, minute: string) => {
        const index = MONTHS.indexOf(month);
        if (index < 0) return text;
        return formatDate(
          new Date(Date.UTC(Number(year), index, Number(day), Number(hour), Number(minute))).toISOString(),
        );
      },
    )
    .replace(ISO_MOMENT, (text) => (Number.isNaN(Date.parse(text)) ? text : formatDate(text)));
}

/** A phone number as a `tel:` link dials it: its digits, and a leading + kept ("tel:+12175550123"). */
export const telHref = (phone: string) =>
  `tel:${phone.trim().startsWith("+") ? "+" : ""}${phone.replace(/\D/g, "")}`;

/** "1 card", "3 cards": a count with its noun, singular for one. */
export const count = (n: number, noun: string, plural = `${noun}s`) => `${n} ${n === 1 ? noun : plural}`;
