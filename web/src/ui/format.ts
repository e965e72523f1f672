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

/** A moment in the reader's own time zone and locale; a dash when it has not happened. */
export const formatDate = (value: string | null) => (value ? new Date(value).toLocaleString() : "—");

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

/** "1 card", "3 cards": a count with its noun, singular for one. */
export const count = (n: number, noun: string, plural = `${noun}s`) => `${n} ${n === 1 ? noun : plural}`;
