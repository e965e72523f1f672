import { Group, NativeSelect, NumberInput } from "@mantine/core";

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
  const amount = Number(value.amount);
  if (value.amount === "" || !Number.isFinite(amount) || amount < 0) return "Enter a number, 0 or more";
  if (value.kind === "cards" && !Number.isInteger(amount)) return "Enter a whole number of cards";
  return null;
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
          decimalScale={value.kind === "money" ? 2 : 0}
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
