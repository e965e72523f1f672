import { Fieldset, NumberInput } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { type AutomationFormValues, MAX_HOLDOUT_PERCENT } from "./form-model.ts";

/** The automation's holdout: a share of homes that get no card, so Revenue can show what the mail adds. */
export function HoldoutSection({ form }: { form: UseFormReturnType<AutomationFormValues> }) {
  return (
    <Fieldset legend="Measure what the mail adds">
      <NumberInput
        label="Holdout (% of homes that get no card)"
        description={`This share of homes is set aside at random and not mailed, so Revenue can compare how often they buy with the homes that got the card. 0 mails every home; at most ${MAX_HOLDOUT_PERCENT} %.`}
        min={0}
        max={MAX_HOLDOUT_PERCENT}
        step={5}
        allowDecimal={false}
        allowNegative={false}
        clampBehavior="none"
        suffix=" %"
        {...form.getInputProps("holdout_percent")}
      />
    </Fieldset>
  );
}
