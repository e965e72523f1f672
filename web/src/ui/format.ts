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

/** "1 card", "3 cards": a count with its noun, singular for one. */
export const count = (n: number, noun: string, plural = `${noun}s`) => `${n} ${n === 1 ? noun : plural}`;
