import { Fieldset, Group, NumberInput, Radio, Stack, Text } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { AUDIENCE_CHOICES, NEIGHBOUR_COUNT, NEIGHBOUR_RADIUS_FT, NEIGHBOUR_TEMPLATE } from "./audience.ts";
import { type AutomationFormValues, blankAutomation } from "./form-model.ts";

/**
 * Who gets the card: the record's home, or the homes around it. Turning to neighbours swaps an
 * untouched home card for the neighbour card's text (a neighbour's card must not greet the customer).
 */
export function AudienceSection({ form }: { form: UseFormReturnType<AutomationFormValues> }) {
  const choose = (value: string) => {
    const audience = value === "neighbours" ? "neighbours" : "home";
    form.setFieldValue("audience", audience);
    const home = blankAutomation();
    const [from, to] = audience === "neighbours" ? [home, NEIGHBOUR_TEMPLATE] : [NEIGHBOUR_TEMPLATE, home];
    if (form.values.headline === from.headline && form.values.message === from.message) {
      form.setFieldValue("headline", to.headline);
      form.setFieldValue("message", to.message);
    }
  };
  return (
    <Fieldset legend="Mail to">
      <Stack>
        <Radio.Group value={form.values.audience} onChange={choose} aria-label="Mail to">
          <Stack gap="xs">
            {AUDIENCE_CHOICES.map((choice) => (
              <Radio key={choice.value} value={choice.value} label={choice.label} />
            ))}
          </Stack>
        </Radio.Group>
        {form.values.audience === "neighbours" && (
          <>
            <Group grow align="flex-start" wrap="wrap">
              <NumberInput
                label="Homes to mail"
                description={`The nearest, at most ${NEIGHBOUR_COUNT.max}`}
                min={NEIGHBOUR_COUNT.min}
                max={NEIGHBOUR_COUNT.max}
                allowDecimal={false}
                allowNegative={false}
                required
                clampBehavior="none"
                {...form.getInputProps("neighbour_count")}
              />
              <NumberInput
                label="Within (feet)"
                description={`${NEIGHBOUR_RADIUS_FT.min} to ${NEIGHBOUR_RADIUS_FT.max.toLocaleString("en-US")} ft of the job (a mile is 5,280 ft)`}
                min={NEIGHBOUR_RADIUS_FT.min}
                max={NEIGHBOUR_RADIUS_FT.max}
                allowDecimal={false}
                allowNegative={false}
                thousandSeparator=","
                clampBehavior="none"
                suffix=" ft"
                required
                {...form.getInputProps("neighbour_radius_ft")}
              />
            </Group>
            <Text size="sm" c="dimmed">
              Never mailed: the job's own home, your customers, homes that opted out, and homes you mailed
              within your frequency window. The card may name the job's street and city with{" "}
              <code>{"{{job_street}}"}</code> and <code>{"{{job_city}}"}</code>, never the customer's name or
              house number.
            </Text>
          </>
        )}
      </Stack>
    </Fieldset>
  );
}
