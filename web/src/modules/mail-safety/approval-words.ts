import { exactMoney } from "../../ui/format.ts";

/** Cents as the app writes money ("$2.55"), as `formatCents`. */
const dollarsAndCents = (cents: number) => exactMoney(cents / 100);

const cardsWord = (count: number) => (count === 1 ? "1 card" : `${count} cards`);

/**
 * What approving cards costs, after "… will be printed and mailed": their price at the profile's cost
 * per card (the price a card is given when it is handed to the printer, so "about"); without one,
 * where to set it.
 */
export function approvalCostWords(count: number, costPerCardCents: number | null): string {
  if (costPerCardCents === null)
    return `. Set your cost per card in Settings to see what ${count === 1 ? "it costs" : "they cost"}.`;
  const each = count === 1 ? "" : ` (${dollarsAndCents(costPerCardCents)} a card)`;
  return `, for about ${dollarsAndCents(count * costPerCardCents)}${each}.`;
}

/**
 * When the approved cards go to print: at once, or, for those a monthly cap holds (`waiting`, as
 * the cap countdown reckons it), on `capOpensOn` or once an owner raises the cap.
 */
export function approvalWhenWords(count: number, waiting: number, capOpensOn = "the 1st"): string {
  const held = `because a monthly cap is reached: ${waiting === 1 ? "it goes" : "they go"} out on ${capOpensOn}, or as soon as an owner raises the cap`;
  if (waiting === 0)
    return `${count === 1 ? "It goes" : "They go"} to print at once: printed mail cannot be taken back.`;
  if (waiting >= count) return `${count === 1 ? "It waits" : "They wait"} ${held}.`;
  return `${count - waiting} go${count - waiting === 1 ? "es" : ""} to print at once (printed mail cannot be taken back); ${cardsWord(waiting)} ${waiting === 1 ? "waits" : "wait"} ${held}.`;
}
