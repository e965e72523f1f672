import { Button, NumberInput, Paper, Radio, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { capInWords, type MailSafety, mailSafetyQuery, useUpdateMailSafety } from "../../api/mail-safety.ts";
import { useRefocusAfterBusy } from "../../ui/focus.ts";
import { wholeNumberProblem } from "../../ui/number-rules.ts";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { LoadError, Loading } from "../../ui/states.tsx";
import {
  CapFields,
  capPatchOf,
  capProblem,
  capValueOf,
  HOLD_MINUTES_MAX,
  holdMinutesProblem,
} from "./cap-fields.tsx";

type VerificationLevel = MailSafety["address_verification"];

type AddressChecker = MailSafety["address_checker"];

/**
 * The address check's levels, in plain words for the check this service runs (the server's
 * descriptions say the same): its own offline checks, or USPS's.
 */
const VERIFICATION_LEVELS: {
  value: VerificationLevel;
  label: string;
  description: Record<AddressChecker, string>;
}[] = [
  {
    value: "strict",
    label: "Strict",
    description: {
      offline:
        "Only addresses that check out completely: a house number, and a ZIP that exists, is in the state written and belongs to the city written.",
      usps: "Only addresses USPS confirms as written.",
    },
  },
  {
    value: "normal",
    label: "Normal (recommended)",
    description: {
      offline:
        "Stops cards no carrier can deliver: no house number, a ZIP that does not exist or is in another state, or a city that is another town than the ZIP's.",
      usps: "Stops cards USPS cannot deliver, including a missing or wrong apartment number.",
    },
  },
  {
    value: "relaxed",
    label: "Relaxed",
    description: {
      offline:
        "Stops only addresses that are surely wrong: a ZIP that does not exist or is in another state, or no ZIP and no known city.",
      usps: "Stops only addresses USPS says it cannot deliver.",
    },
  },
];

const CHECKER_WORDS: Record<AddressChecker, string> = {
  offline:
    "Every card's address is checked before it is printed; a card that fails is not printed or paid for, and Mail shows why.",
  usps: "Every card's address is checked with USPS before it is printed; a card that fails is not printed or paid for, and Mail shows why.",
};

/** Settings → Mail safety: the organization's monthly cap, the frequency cap per home and the address check (owners change them). */
export function OrgSafetyPanel({ canEdit }: { canEdit: boolean }) {
  const safety = useQuery(mailSafetyQuery());
  if (safety.isPending) return <Loading label="Loading the mail safety settings" />;
  if (safety.isError) return <LoadError error={safety.error} retry={() => safety.refetch()} />;
  return <OrgSafetyForm key={JSON.stringify(safety.data)} safety={safety.data} canEdit={canEdit} />;
}

function OrgSafetyForm({ safety, canEdit }: { safety: MailSafety; canEdit: boolean }) {
  const update = useUpdateMailSafety();
  const saveButton = useRefocusAfterBusy(update.isPending);
  const [cap, setCap] = useState(capValueOf(safety.organization));
  const [days, setDays] = useState<number | string>(safety.frequency_cap_days);
  const [level, setLevel] = useState<VerificationLevel>(safety.address_verification);
  const [mailingHold, setMailingHold] = useState<number | string>(safety.mailing_hold_minutes);
  const holdProblem = holdMinutesProblem(mailingHold);
  const problem = capProblem(cap);
  const daysProblem = wholeNumberProblem(days, { min: 0, max: 3650, unit: "days", span: "10 years" });

  const save = useSingleFlight(async () => {
    if (problem || daysProblem || holdProblem) return;
    await update
      .mutateAsync({
        frequency_cap_days: Number(days),
        address_verification: level,
        mailing_hold_minutes: Number(mailingHold),
        ...capPatchOf(cap),
      })
      .then(() =>
        notifications.show({
          color: "green",
          title: "Saved",
          message: "The mail safety settings are saved.",
        }),
      )
      .catch(() => undefined);
  });

  return (
    <Paper withBorder p="md" radius="md" maw={640}>
      <Stack>
        {!canEdit && (
          <Text size="sm" c="dimmed">
            Only an owner can change these settings.
          </Text>
        )}
        <CapFields
          label="Monthly cap of the organization"
          value={cap}
          onChange={setCap}
          error={problem}
          disabled={!canEdit}
        />
        <Text size="sm" c="dimmed">
          This month so far: {capInWords(safety.organization)}. Cards past a cap wait and go out when the cap
          is raised or the new month starts; owners get one email.
        </Text>
        <NumberInput
          label="Frequency cap per home (days)"
          description="A home gets at most one card in this many days, across all automations (the follow-up cards of its own sequence excepted). 0 turns it off."
          min={0}
          max={3650}
          clampBehavior="none"
          value={days}
          onChange={setDays}
          error={daysProblem}
          disabled={!canEdit}
        />
        <NumberInput
          label="Hold window for mailings (minutes)"
          description="The cards of a mailing you send from past jobs wait this long before print; until then you can cancel them in Mail. 0 sends them at once."
          min={0}
          max={HOLD_MINUTES_MAX}
          clampBehavior="none"
          value={mailingHold}
          onChange={setMailingHold}
          error={holdProblem}
          disabled={!canEdit}
        />
        <Radio.Group
          label="Address check before print"
          description={CHECKER_WORDS[safety.address_checker]}
          value={level}
          onChange={(value) => setLevel(value as VerificationLevel)}
        >
          <Stack gap="xs" mt="xs">
            {VERIFICATION_LEVELS.map((option) => (
              <Radio
                key={option.value}
                value={option.value}
                label={option.label}
                description={option.description[safety.address_checker]}
                disabled={!canEdit}
              />
            ))}
          </Stack>
        </Radio.Group>
        {canEdit && (
          <Button
            ref={saveButton}
            onClick={save}
            loading={update.isPending}
            style={{ alignSelf: "flex-start" }}
          >
            Save mail safety
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
