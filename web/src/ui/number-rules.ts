/**
 * A typed number checked against the server's range, refused in words on its field. The number
 * fields do not clamp (`clampBehavior="none"`): a value silently changed on blur was then saved as
 * if it had been typed.
 */

const count = (value: number) => value.toLocaleString("en-US");
const dollars = (cents: number) =>
  (cents / 100).toLocaleString("en-US", { style: "currency", currency: "USD" });

/** A field's value as Mantine's NumberInput gives it: a number, or "" when empty. */
type Typed = number | string;

const isBlank = (value: Typed) => String(value).trim() === "";

/**
 * Why a whole number is refused, e.g. "Enter a whole number of minutes from 0 to 43,200 (30 days).";
 * null when it is one from `min` to `max`. `unit` is plural ("minutes"); `span` says `max` plainly.
 */
export function wholeNumberProblem(
  value: Typed,
  {
    min,
    max,
    unit,
    span,
    optional = false,
  }: { min: number; max: number; unit: string; span?: string; optional?: boolean },
): string | null {
  if (optional && isBlank(value)) return null;
  const amount = Number(value);
  if (!isBlank(value) && Number.isInteger(amount) && amount >= min && amount <= max) return null;
  return `Enter a whole number of ${unit} from ${count(min)} to ${count(max)}${span ? ` (${span})` : ""}.`;
}

/** Why an amount of dollars is refused, e.g. "Enter an amount from $0.00 to $1,000.00."; null when it fits. */
export function dollarsProblem(
  value: Typed,
  { maxCents, optional = false }: { maxCents: number; optional?: boolean },
): string | null {
  if (optional && isBlank(value)) return null;
  const cents = Number(value) * 100;
  if (!isBlank(value) && Number.isFinite(cents) && cents >= 0 && Math.round(cents) <= maxCents) return null;
  return `Enter an amount from $0.00 to ${dollars(maxCents)}.`;
}

/** "12500", "12,500", "$12,500.50"; the k shorthand contractors write: "24k", "12.5k". */
const DOLLARS = /^(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?$/;
const THOUSANDS = /^(\d+(?:\.\d{1,3})?)\s*k$/i;

/**
 * The dollars a typed amount means, or null when it is not one: a letter is never dropped (a
 * number field read "24k" as $24), "24.000" (a European thousands dot) is not taken for $24, and
 * "24,5" is not taken for $245.
 */
export function typedDollars(text: string): number | null {
  const typed = text.trim().replace(/^\$\s*/, "");
  const thousands = THOUSANDS.exec(typed);
  if (thousands) return Math.round(Number(thousands[1]) * 1000 * 100) / 100;
  const plain = DOLLARS.exec(typed);
  return plain ? Number(`${plain[1]!.replaceAll(",", "")}${plain[2] ?? ""}`) : null;
}
