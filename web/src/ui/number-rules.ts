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
