import {
  Button,
  Checkbox,
  Fieldset,
  Group,
  NumberInput,
  Paper,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { useRef } from "react";
import type { Automation, ProofInput } from "../../api/automations.ts";
import { CardFitNotice } from "../../modules/automations/components/CardFitNotice.tsx";
import { LiveProof, type ProofSample } from "../../modules/automations/components/LiveProof.tsx";
import {
  DELAY_DAYS,
  followUpResults,
  followUpTemplate,
  MAX_FOLLOW_UPS,
  newFollowUp,
  STOP_CHOICES,
  type StopCondition,
} from "../../modules/automations/follow-ups.ts";
import {
  type AutomationFormValues,
  cardFitInputOf,
  EMPTY_OFFER_HINT,
} from "../../modules/automations/form-model.ts";
import { focusWhenShown, refocusAfterBusy } from "../../ui/focus.ts";

/**
 * The builder's follow-up cards (issue 42): each with its delay after the first card, its text and
 * its proof, drawn for the same record and audience as the first card's; and the answers of the
 * home that stop them.
 */
export function FollowUpCards({
  form,
  recipient,
  sample,
  recordKnown,
  resultsByStep = [],
}: {
  form: UseFormReturnType<AutomationFormValues>;
  /** Who the proofs are drawn for: the first card's sample record and audience. */
  recipient: Omit<ProofInput, "template">;
  sample: ProofSample | undefined;
  recordKnown: boolean;
  /** What became of the saved steps' follow-ups, each found by its day (a step moved to another day is a new one). */
  resultsByStep?: Automation["follow_up_cards"]["by_step"];
}) {
  const rows = form.values.follow_ups;
  const lastDelay = Number(rows.at(-1)?.delay_days ?? 0) || 0;
  const addButton = useRef<HTMLButtonElement>(null);
  // A card added appears above the button: the focus goes to its first field. A card removed takes
  // its Remove button with it: the focus goes to Add a follow-up card, not <body>.
  const addCard = () => {
    form.insertListItem("follow_ups", newFollowUp(lastDelay, rows.length));
    const added = `Follow-up card ${rows.length + 1}`;
    focusWhenShown(() => document.querySelector<HTMLElement>(`section[aria-label="${added}"] input`));
  };
  const removeCard = (index: number) => {
    form.removeListItem("follow_ups", index);
    refocusAfterBusy(() => addButton.current);
  };

  return (
    <Fieldset legend="Follow-up cards">
      <Stack>
        <Text size="sm" c="dimmed">
          Up to {MAX_FOLLOW_UPS} more cards to the same home, each a number of days after the first card is
          mailed. They stop as soon as the home answers in one of the ways you tick below. The frequency cap
          in Settings (one card per home every so many days) does not hold back a sequence's own follow-ups.
        </Text>
        {rows.map((row, index) => {
          const number = index + 1;
          const saved = resultsByStep.find((step) => step.delay_days === Number(row.delay_days));
          const results = saved && followUpResults(saved, null);
          return (
            <Paper
              key={row.key}
              withBorder
              p="md"
              radius="md"
              component="section"
              aria-label={`Follow-up card ${number}`}
            >
              <Stack>
                <Group justify="space-between" wrap="wrap">
                  {/* The builder's sections are fieldsets: the first heading after the page's is this one. */}
                  <Title order={2} size="h5">
                    Follow-up card {number}
                  </Title>
                  <Button variant="default" size="compact-sm" onClick={() => removeCard(index)}>
                    Remove follow-up card {number}
                  </Button>
                </Group>
                {results && (
                  <Text size="sm" c="dimmed">
                    So far: {results}.
                  </Text>
                )}
                <NumberInput
                  label="Days after the first card is mailed"
                  min={DELAY_DAYS.min}
                  max={DELAY_DAYS.max}
                  allowDecimal={false}
                  required
                  clampBehavior="none"
                  {...form.getInputProps(`follow_ups.${index}.delay_days`)}
                />
                <TextInput
                  label="Headline"
                  required
                  {...form.getInputProps(`follow_ups.${index}.headline`)}
                />
                <Textarea
                  label="Message"
                  description="The same merge fields as the first card, e.g. {{client_name}} or {{street}}."
                  autosize
                  minRows={3}
                  required
                  {...form.getInputProps(`follow_ups.${index}.message`)}
                />
                <TextInput
                  label="Offer"
                  description={EMPTY_OFFER_HINT}
                  {...form.getInputProps(`follow_ups.${index}.offer`)}
                />
                <CardFitNotice
                  input={cardFitInputOf(followUpTemplate(row, form.values.card_size), recipient)}
                />
                <LiveProof
                  title={`Proof of follow-up card ${number}`}
                  headingOrder={3}
                  recordKnown={recordKnown}
                  sample={sample}
                  input={{ ...recipient, template: followUpTemplate(row, form.values.card_size) }}
                />
              </Stack>
            </Paper>
          );
        })}
        {rows.length < MAX_FOLLOW_UPS ? (
          <Group>
            <Button ref={addButton} variant="default" onClick={addCard}>
              Add a follow-up card
            </Button>
          </Group>
        ) : (
          <Text size="sm" c="dimmed">
            A sequence has at most {MAX_FOLLOW_UPS} follow-up cards.
          </Text>
        )}
        {rows.length > 0 && (
          <Checkbox.Group
            label="Stop the follow-up cards to a home when"
            value={form.values.stop_when}
            onChange={(value) => form.setFieldValue("stop_when", value as StopCondition[])}
          >
            <Stack gap="xs" mt="xs">
              {STOP_CHOICES.map((choice) => (
                <Checkbox key={choice.value} value={choice.value} label={choice.label} />
              ))}
            </Stack>
          </Checkbox.Group>
        )}
      </Stack>
    </Fieldset>
  );
}
