import { Group, NativeSelect, NumberInput } from "@mantine/core";
import { dollarsProblem, wholeNumberProblem } from "../../ui/number-rules.ts";

/** The server's largest cap, of cards or of cents (src/app-api/routes/mail-safety.ts). */
const CAP_MAX = 100_000_000;

/** The server's longest hold window, an automation's or a mailing's: 30 days. */
export const HOLD_MINUTES_MAX = 30 * 24 * 60;

export const holdMinutesProblem = (minutes: number | string) =>
  wholeNumberProblem(minutes, { min: 0, max: HOLD_MINUTES_MAX, unit: "minutes", span: "30 days" });

/** A monthly cap as the forms edit it: none, a number of cards, or an amount of money (dollars). */
export interface CapValue {
  kind: "none" | "cards" | "money";
  amount: number | string;
}

export function capValueOf(caps: {
  monthly_card_cap: number | null;
  monthly_spend_cap_cents: number | null;
}): CapValue {
  if (caps.monthly_card_cap !== null) return { kind: "cards", amount: caps.monthly_card_cap };
  if (caps.monthly_spend_cap_cents !== null)
    return { kind: "money", amount: caps.monthly_spend_cap_cents / 100 };
  return { kind: "none", amount: "" };
}

export function capPatchOf(value: CapValue): {
  monthly_card_cap: number | null;
  monthly_spend_cap_cents: number | null;
} {
  const amount = Number(value.amount);
  return {
    monthly_card_cap: value.kind === "cards" ? Math.floor(amount) : null,
    monthly_spend_cap_cents: value.kind === "money" ? Math.round(amount * 100) : null,
  };
}

export function capProblem(value: CapValue): string | null {
  if (value.kind === "none") return null;
  if (value.kind === "cards")
    return wholeNumberProblem(value.amount, { min: 0, max: CAP_MAX, unit: "cards" });
  return dollarsProblem(value.amount, { maxCents: CAP_MAX });
}

/** The cap's kind and its amount, side by side; `label` names whose cap it is. */
export function CapFields({
  label,
  value,
  onChange,
  error,
  disabled,
}: {
  label: string;
  value: CapValue;
  onChange: (value: CapValue) => void;
  error?: string | null;
  disabled?: boolean;
}) {
  return (
    <Group align="flex-start" grow wrap="wrap">
      <NativeSelect
        label={label}
        data={[
          { value: "none", label: "No cap" },
          { value: "cards", label: "Cards a month" },
          { value: "money", label: "Spend a month (USD)" },
        ]}
        value={value.kind}
        disabled={disabled}
        onChange={(event) => onChange({ ...value, kind: event.currentTarget.value as CapValue["kind"] })}
        miw={180}
      />
      {value.kind !== "none" && (
        <NumberInput
          label={value.kind === "cards" ? "Cards per month" : "Dollars per month"}
          min={0}
          clampBehavior="none"
          // Cards may be typed with a decimal point, so 1.5 cards is refused in words, not cut to 1.
          decimalScale={2}
          prefix={value.kind === "money" ? "$" : undefined}
          value={value.amount}
          disabled={disabled}
          error={error ?? undefined}
          onChange={(amount) => onChange({ ...value, amount })}
          miw={160}
        />
      )}
    </Group>
  );
}
