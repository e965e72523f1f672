/**
 * How mail safety writes money and times into a piece's reason and the owners' email: for a
 * person, in UTC (the server knows no reader's time zone; the app shows the exact times beside).
 */

const DOLLARS = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
const DAY = new Intl.DateTimeFormat("en-US", {
  timeZone: "UTC",
  month: "short",
  day: "numeric",
  year: "numeric",
});
const MINUTE = new Intl.DateTimeFormat("en-US", {
  timeZone: "UTC",
  weekday: "short",
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** "$1,500.00" */
export const dollars = (cents: number) => DOLLARS.format(cents / 100);
/** "Mar 30, 2026" */
export const utcDay = (date: Date) => DAY.format(date);
/** "Fri, Nov 27, 2026, 01:28 UTC" */
export const utcMinute = (date: Date) => `${MINUTE.format(date)} UTC`;
