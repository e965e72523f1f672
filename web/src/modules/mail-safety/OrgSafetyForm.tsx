import { Button, NumberInput, Paper, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { capInWords, type MailSafety, mailSafetyQuery, useUpdateMailSafety } from "../../api/mail-safety.ts";
import { LoadError, Loading } from "../../ui/states.tsx";
import { CapFields, capPatchOf, capProblem, capValueOf } from "./cap-fields.tsx";

/** Settings → Mail safety: the organization's monthly cap and the frequency cap per home (owners change them). */
export function OrgSafetyPanel({ canEdit }: { canEdit: boolean }) {
  const safety = useQuery(mailSafetyQuery());
  if (safety.isPending) return <Loading label="Loading the mail safety settings" />;
  if (safety.isError) return <LoadError error={safety.error} retry={() => safety.refetch()} />;
  return <OrgSafetyForm key={JSON.stringify(safety.data)} safety={safety.data} canEdit={canEdit} />;
}

function OrgSafetyForm({ safety, canEdit }: { safety: MailSafety; canEdit: boolean }) {
  const update = useUpdateMailSafety();
  const [cap, setCap] = useState(capValueOf(safety.organization));
  const [days, setDays] = useState<number | string>(safety.frequency_cap_days);
  const problem = capProblem(cap);
  const daysValid =
    days !== "" && Number.isInteger(Number(days)) && Number(days) >= 0 && Number(days) <= 3650;

  const save = async () => {
    if (problem || !daysValid) return;
    await update
      .mutateAsync({ frequency_cap_days: Number(days), ...capPatchOf(cap) })
      .then(() =>
        notifications.show({
          color: "green",
          title: "Saved",
          message: "The mail safety settings are saved.",
        }),
      )
      .catch(() => undefined);
  };

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
          description="A home gets at most one card in this many days, across all automations. 0 turns it off."
          min={0}
          max={3650}
          allowDecimal={false}
          value={days}
          onChange={setDays}
          error={daysValid ? undefined : "Enter whole days from 0 to 3650"}
          disabled={!canEdit}
        />
        {canEdit && (
          <Button onClick={save} loading={update.isPending} style={{ alignSelf: "flex-start" }}>
            Save mail safety
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
