import {
  Alert,
  Button,
  Fieldset,
  Grid,
  Group,
  List,
  MultiSelect,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useDebouncedValue } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { keepPreviousData, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { getRouteApi, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import {
  importJobTypesQuery,
  newRequestId,
  type ReactivationSelection,
  reactivationPreviewQuery,
  reactivationProofQuery,
  useSendReactivation,
} from "../../api/customers.ts";
import { ApiError } from "../../api/errors.ts";
import { sessionQuery } from "../../api/session.ts";
import { MessageField } from "../../modules/automations/components/MessageField.tsx";
import {
  type AutomationFormValues,
  blankAutomation,
  CARD_SIZES,
  EMPTY_OFFER_HINT,
  templateOf,
} from "../../modules/automations/form-model.ts";
import { MAILING_CARD_TEXT } from "../../modules/customers/mailing-text.ts";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";
import { focusFirstRefused } from "../../ui/focus.ts";
import { PhoneProof } from "../../ui/PhoneProof.tsx";
import { LoadError, PageHeader } from "../../ui/states.tsx";
import { FirstCardProof } from "./FirstCardProof.tsx";

const route = getRouteApi("/signed-in/customers/mailings/new");

const MATCH_FIELDS = [
  { value: "customer_name", label: "Customer name", example: "e.g. Smith" },
  { value: "address", label: "Address", example: "e.g. Oak St" },
  { value: "external_id", label: "Job or record id", example: "e.g. J-1042" },
  { value: "job_type", label: "Job type", example: "e.g. roof" },
] as const;
type MatchField = (typeof MATCH_FIELDS)[number]["value"];

type MailingFormValues = AutomationFormValues & {
  completed_before: string;
  job_types: string[];
  match_field: MatchField;
  match_text: string;
};

const REASON_WORDS: Record<string, string> = {
  customer: "already customers (never mailed)",
  opted_out: "on the do-not-mail list (opted out from a landing page)",
  no_mailable_address: "no mailable address",
  undeliverable: "an address the check before print would stop (e.g. a ZIP of another state)",
  duplicate: "the same home twice",
};

function selectionOf(batches: string[], values: MailingFormValues): ReactivationSelection {
  return {
    import_ids: batches,
    filter: {
      ...(values.completed_before ? { completed_before: values.completed_before } : {}),
      ...(values.job_types.length > 0 ? { job_types: values.job_types } : {}),
      ...(values.match_text.trim()
        ? { match: [{ field: values.match_field, contains: values.match_text.trim() }] }
        : {}),
    },
  };
}

/** A reactivation mailing: filter imported past jobs, see who is left out and why, check the first card, send. */
export function NewMailingPage() {
  const batches = route
    .useSearch()
    .batches.split(",")
    .filter((id) => /^[0-9a-f-]{36}$/i.test(id));
  const navigate = useNavigate();
  const { data: session } = useSuspenseQuery(sessionQuery());
  const form = useForm<MailingFormValues>({
    initialValues: {
      ...blankAutomation(),
      name: `Reactivation ${new Date().toISOString().slice(0, 10)}`,
      ...MAILING_CARD_TEXT,
      completed_before: "",
      job_types: [],
      match_field: "customer_name",
      match_text: "",
    },
    // What the builder asks of the same fields, in the mailing's words.
    validate: {
      name: (value) => (value.trim() ? null : "Give the mailing a name"),
      headline: (value) => (value.trim() ? null : "Write a headline"),
      message: (value) => (value.trim() ? null : "Write a message"),
    },
  });
  const selection = selectionOf(batches, form.values);
  // Debounced as text: a new object each render restarted both timers on every render, and the
  // selection's (re-rendering every 400 ms) kept the template's from ever firing, so the proof never
  // showed what was typed on the card.
  const [selectionText] = useDebouncedValue(JSON.stringify(selection), 400);
  const [templateText] = useDebouncedValue(JSON.stringify(templateOf(form.values)), 600);
  const debouncedSelection = JSON.parse(selectionText) as ReactivationSelection;
  const debouncedTemplate = JSON.parse(templateText) as ReturnType<typeof templateOf>;
  const preview = useQuery({
    ...reactivationPreviewQuery(debouncedSelection),
    placeholderData: keepPreviousData,
  });
  const canMail = (preview.data?.mailable ?? 0) > 0;
  const proof = useQuery({
    ...reactivationProofQuery({ ...debouncedSelection, template: debouncedTemplate }),
    enabled: canMail,
    placeholderData: keepPreviousData,
  });
  const send = useSendReactivation();
  const [requestId] = useState(newRequestId);
  // The values the owner asked to send: a confirm step shows their count and cost first.
  const [toConfirm, setToConfirm] = useState<MailingFormValues | null>(null);
  const jobTypes = useQuery({ ...importJobTypesQuery(batches), enabled: batches.length > 0 });
  const noJobTypes = jobTypes.data?.job_types.length === 0;

  if (batches.length === 0) {
    return (
      <>
        <PageHeader title="New mailing" />
        <Alert color="orange">Choose one or more imported batches under Customers → Past jobs first.</Alert>
      </>
    );
  }

  const summary = preview.data;
  // Resolves once sent (on to Mail) or sent back to the form's fields; rejects with a failure the
  // dialog shows (the audience changed since the preview: its count and cost are read again).
  const sendConfirmed = async (values: MailingFormValues, confirmedCards: number) => {
    let sent: { queued: number };
    try {
      sent = await send.mutateAsync({
        ...selectionOf(batches, values),
        name: values.name,
        template: templateOf(values),
        request_id: requestId,
        confirmed_cards: confirmedCards,
      });
    } catch (error) {
      if (error instanceof ApiError) {
        // The audience changed since the preview: show the new count and cost.
        if (error.code === "confirmation_stale") void preview.refetch();
        // The filter's and card's fields come back as filter.job_types[…] and template.headline;
        // the form knows them by name. A refusal of a field not on the form stays in the dialog.
        const errors = Object.entries(error.fieldErrors()).map(([field, message]) => [
          field.replace(/^filter\.(job_types)(\[\d+\])?$/, "$1").replace(/^(filter|template)\./, ""),
          message,
        ]);
        const onForm = errors.filter(([field]) => Object.hasOwn(form.values, field!));
        form.setErrors(Object.fromEntries(onForm));
        // Said on the fields to fix: the dialog closes.
        if (onForm.length > 0 && onForm.length === errors.length) return;
      }
      throw error;
    }
    // Mail lists the new cards first; the toast says the mailing went, how many cards it made and,
    // as the confirm dialog did, whether they can still be cancelled.
    const cards = `${sent.queued} card${sent.queued === 1 ? " is" : "s are"}`;
    const holdMinutes = summary?.hold_minutes ?? 0;
    notifications.show({
      color: "green",
      title: "Mailing sent",
      message:
        holdMinutes > 0
          ? `${cards} waiting ${holdMinutes} minutes before print; until then you can cancel them in Mail.`
          : `${cards} on the way to print.`,
    });
    await navigate({ to: "/mail" });
  };
  const excluded = summary ? Object.entries(summary.excluded).filter(([, count]) => count > 0) : [];

  return (
    <>
      <PageHeader
        title="New mailing"
        description={`From ${batches.length} imported batch${batches.length === 1 ? "" : "es"} of past jobs.`}
      />
      <form onSubmit={form.onSubmit((values) => setToConfirm(values), focusFirstRefused)} noValidate>
        <Grid>
          <Grid.Col span={{ base: 12, md: 7 }}>
            <Stack gap="lg">
              <TextInput label="Mailing name" required {...form.getInputProps("name")} />
              <Fieldset legend="Who gets a card">
                <Stack>
                  <TextInput
                    type="date"
                    label="Last job before"
                    description="Leave empty for every row."
                    {...form.getInputProps("completed_before")}
                  />
                  <MultiSelect
                    label="Job type"
                    // With none to pick, a field that opens on nothing is greyed; its description says why.
                    disabled={noJobTypes}
                    placeholder={
                      jobTypes.isPending
                        ? "Loading job types…"
                        : noJobTypes
                          ? "None in these batches"
                          : undefined
                    }
                    description={
                      noJobTypes
                        ? "These batches have no job types (only a CSV upload with a job type column has them)."
                        : "Leave empty for every job type."
                    }
                    data={(jobTypes.data?.job_types ?? []).map((entry) => ({
                      value: entry.job_type,
                      label: `${entry.job_type} (${entry.rows})`,
                    }))}
                    searchable
                    clearable
                    maxValues={50}
                    nothingFoundMessage="No such job type in these batches"
                    {...form.getInputProps("job_types")}
                    error={
                      form.errors.job_types ??
                      (jobTypes.isError ? "The job types could not be loaded." : undefined)
                    }
                  />
                  {/* Side by side from 576 px up; at phone width a half-width select cut its own value. */}
                  <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
                    <Select
                      label="Imported field"
                      data={MATCH_FIELDS.map(({ value, label }) => ({ value, label }))}
                      allowDeselect={false}
                      {...form.getInputProps("match_field")}
                    />
                    <TextInput
                      label="Contains"
                      placeholder={
                        MATCH_FIELDS.find((field) => field.value === form.values.match_field)?.example
                      }
                      {...form.getInputProps("match_text")}
                    />
                  </SimpleGrid>
                </Stack>
              </Fieldset>
              <Paper withBorder p="md" component="section" aria-labelledby="audience-heading">
                <Title order={2} size="h4" id="audience-heading" mb="xs">
                  Who this reaches
                </Title>
                {preview.isError ? (
                  <LoadError error={preview.error} retry={() => preview.refetch()} />
                ) : !summary ? (
                  <Text size="sm" role="status">
                    Counting…
                  </Text>
                ) : (
                  <Stack gap="xs" aria-live="polite">
                    <Text>
                      <strong>{summary.mailable}</strong> card{summary.mailable === 1 ? "" : "s"} from{" "}
                      {summary.matched} matching row{summary.matched === 1 ? "" : "s"}.
                    </Text>
                    {excluded.length > 0 && (
                      <List size="sm" aria-label="Left out">
                        {excluded.map(([reason, count]) => (
                          <List.Item key={reason}>
                            {count} left out: {REASON_WORDS[reason] ?? reason}
                          </List.Item>
                        ))}
                      </List>
                    )}
                    {summary.excluded_examples.length > 0 && (
                      <Text size="sm" c="dimmed">
                        For example:{" "}
                        {summary.excluded_examples
                          .slice(0, 5)
                          .map((example) => `${example.address} (${example.detail})`)
                          .join("; ")}
                      </Text>
                    )}
                  </Stack>
                )}
              </Paper>
              <Fieldset legend="The card">
                <Stack>
                  <TextInput label="Headline" required {...form.getInputProps("headline")} />
                  <MessageField form={form as never} propertyKeys={["cf_last_job_date", "cf_job_type"]} />
                  <TextInput
                    label="Offer"
                    description={`Printed as its own line. ${EMPTY_OFFER_HINT}`}
                    {...form.getInputProps("offer")}
                  />
                  <Select
                    label="Card size"
                    data={CARD_SIZES.map((size) => ({ ...size }))}
                    allowDeselect={false}
                    {...form.getInputProps("card_size")}
                  />
                </Stack>
              </Fieldset>
              {session.role !== "owner" && (
                <Alert color="gray">
                  Only an owner of your organization can send a mailing: it is paid for.
                </Alert>
              )}
              <Group>
                {/* It only opens "Send this mailing?", whose own button spins while the mailing is sent. */}
                <Button type="submit" disabled={!canMail || session.role !== "owner"}>
                  Send {summary?.mailable ?? ""} card{summary?.mailable === 1 ? "" : "s"}
                </Button>
              </Group>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            <FirstCardProof proof={proof} canMail={canMail} address={summary?.first_rows[0]?.address} />
          </Grid.Col>
        </Grid>
      </form>
      {/* On a phone the proof above falls under the whole form: the same proof in a sheet, in reach. */}
      <PhoneProof>
        <FirstCardProof proof={proof} canMail={canMail} address={summary?.first_rows[0]?.address} />
      </PhoneProof>
      <ConfirmDialog
        opened={toConfirm !== null}
        title="Send this mailing?"
        keepLabel="Go back"
        confirmLabel={`Send ${summary?.mailable ?? ""} card${summary?.mailable === 1 ? "" : "s"}`}
        pendingLabel="Sending the mailing…"
        failureTitle="The mailing was not sent"
        danger={false}
        onClose={() => setToConfirm(null)}
        onConfirm={async () => {
          if (summary && toConfirm) await sendConfirmed(toConfirm, summary.mailable);
        }}
      >
        {summary && (
          <>
            <Text>
              {summary.mailable} card{summary.mailable === 1 ? "" : "s"} will be printed and mailed
              {summary.estimated_cost_cents === null
                ? ". Set your cost per card in Settings to see what it costs."
                : `, for about ${formatCents(summary.estimated_cost_cents)}.`}
            </Text>
            <Text size="sm">
              {summary.hold_minutes > 0
                ? `The cards wait ${summary.hold_minutes} minutes before print (your hold window for mailings); until then you can cancel them in Mail.`
                : "The cards go to print at once: printed mail cannot be taken back. An owner can set a hold window for mailings in Settings → Mail safety."}
            </Text>
          </>
        )}
      </ConfirmDialog>
    </>
  );
}

const formatCents = (cents: number) =>
  (cents / 100).toLocaleString("en-US", { style: "currency", currency: "USD" });
