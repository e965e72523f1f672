/** How the app writes figures and times for a person: one place, so every screen says them alike. */

const WHOLE_DOLLARS = new Intl.NumberFormat(undefined, {
  style: "currency",
  currency: "USD",
  maximumFractionDigits: 0,
});
const DOLLARS_AND_CENTS = new Intl.NumberFormat(undefined, { style: "currency", currency: "USD" });

/** Whether an amount in dollars has cents, read to the cent (a sum of deals may carry float dust). */
const hasCents = (amount: number) => Math.round(amount * 100) % 100 !== 0;

/**
 * An amount of revenue, a deal's or a total of deals: its cents when it has any ("$9,200.50", never
 * rounded to $9,201), none when it is whole ("$4,250"). A total agrees to the cent with the deals it
 * adds up: "$27,651" beside deals that added to $27,650.50 read as a mistake. A dash when there is none.
 */
export const money = (amount: number | null) =>
  amount === null ? "—" : (hasCents(amount) ? DOLLARS_AND_CENTS : WHOLE_DOLLARS).format(amount);

/** An estimate in whole dollars ("≈ $12,400"): cents would claim a precision it has not. */
export const roughMoney = (amount: number) => WHOLE_DOLLARS.format(amount);

/** Dollars and cents for a cost ("$0.85", "$12,400.00"); a dash when there is none. */
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

/*
 * Dates and times, every screen alike: a day reads "Dec 1, 2026", a moment "Dec 1, 2026, 11:52 AM",
 * a month "Dec 2026" (in the reader's locale; these are en-US). Screens never call toLocaleString
 * themselves: its default ("12/1/2026, 11:52:03 AM") is another style.
 */
const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const DAY_AND_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
/** A calendar date the API writes without a time ("2026-12-01") is that day wherever the reader is. */
const CALENDAR_DAY = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" });
const SHORT_MONTH = new Intl.DateTimeFormat(undefined, { month: "short", year: "numeric", timeZone: "UTC" });
const LONG_MONTH = new Intl.DateTimeFormat(undefined, { month: "long", year: "numeric", timeZone: "UTC" });
const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });
const DAY_OF_YEAR_AND_TIME = new Intl.DateTimeFormat(undefined, {
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
});

const moment = (value: string | number | Date) => (value instanceof Date ? value : new Date(value));

/** A moment, in the reader's own time zone: "Dec 1, 2026, 11:52 AM"; a dash when it has not happened. */
export const formatDateTime = (value: string | number | Date | null) =>
  value === null ? "—" : DAY_AND_TIME.format(moment(value));

/** The day of a moment, in the reader's own time zone: "Dec 1, 2026"; a dash when there is none. */
export const formatDay = (value: string | number | Date | null) =>
  value === null ? "—" : DAY.format(moment(value));

/**
 * A date without a time as the API writes it ("2026-12-01": a deal's close date, a job's completion
 * date): "Dec 1, 2026", never the day before west of UTC; a dash when there is none.
 */
export function formatCalendarDay(value: string | null): string {
  if (value === null) return "—";
  const date = new Date(`${value.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? value : CALENDAR_DAY.format(date);
}

/** A month the API writes as "2026-12" (or a date in it): "Dec 2026" in a table, "December 2026" in a sentence. */
export const formatMonth = (month: string, style: "short" | "long" = "short") =>
  (style === "long" ? LONG_MONTH : SHORT_MONTH).format(new Date(`${month.slice(0, 7)}-01T00:00:00Z`));

/** A recent moment said briefly: "11:52 AM" today, "Nov 30, 11:52 AM" another day. */
export function formatRecent(value: string | number | Date, now = new Date()): string {
  const date = moment(value);
  return date.toDateString() === now.toDateString() ? TIME.format(date) : DAY_OF_YEAR_AND_TIME.format(date);
}

const CHART_MONTH = new Intl.DateTimeFormat(undefined, { month: "short", timeZone: "UTC" });

/** A chart's month label ("YYYY-MM…"): "Jun"; the first bar and each January with the year ("Jan 2026"). */
export function chartMonth(month: string, index: number): string {
  const withYear = index === 0 || month.slice(5, 7) === "01";
  return withYear ? formatMonth(month) : CHART_MONTH.format(new Date(`${month.slice(0, 7)}-01T00:00:00Z`));
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
/** A moment as the server writes it into a card's reason: "Fri, Nov 27, 2026, 01:28 UTC" (mail-safety/words.ts). */
const SERVER_MINUTE =
  /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), ([A-Z][a-z]{2}) (\d{1,2}), (\d{4}), (\d{2}):(\d{2}) UTC\b/g;
/** A raw ISO-8601 timestamp. */
const ISO_MOMENT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

/**
 * A card's reason with its moments written like every other date of the app (formatDateTime, the
 * reader's own time zone) instead of the server's UTC ("held … until Fri, Nov 27, 2026, 01:28 UTC").
 */
export function readableReason(reason: string): string {
  return reason
    .replace(
      SERVER_MINUTE,
      (text, month: string, day: string, year: string, hour: string, minute: string) => {
        const index = MONTHS.indexOf(month);
        if (index < 0) return text;
        return formatDateTime(
          new Date(Date.UTC(Number(year), index, Number(day), Number(hour), Number(minute))).toISOString(),
        );
      },
    )
    .replace(ISO_MOMENT, (text) => (Number.isNaN(Date.parse(text)) ? text : formatDateTime(text)));
}

/** A phone number as a `tel:` link dials it: its digits, and a leading + kept ("tel:+12175550123"). */
export const telHref = (phone: string) =>
  `tel:${phone.trim().startsWith("+") ? "+" : ""}${phone.replace(/\D/g, "")}`;

/** "1 card", "3 cards": a count with its noun, singular for one. */
export const count = (n: number, noun: string, plural = `${noun}s`) => `${n} ${n === 1 ? noun : plural}`;

/** Who a card is addressed to, as the printed card says it when it names nobody. */
export const recipientOf = (name: string | null | undefined) => name ?? "Current Resident";
