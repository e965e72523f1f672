import { Button, Fieldset, Grid, Group, NativeSelect, Stack, Switch, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { type UseQueryResult, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { getRouteApi, useNavigate } from "@tanstack/react-router";
import { useDeferredValue, useEffect, useId, useRef, useState } from "react";
import {
  type Automation,
  automationQuery,
  useCreateAutomation,
  useDryRun,
  useUpdateAutomation,
} from "../../api/automations.ts";
import { ApiError } from "../../api/errors.ts";
import {
  type EventSample,
  eventSamplesQuery,
  eventTypesQuery,
  lookAgainWhileEmpty,
  propertiesOf,
  recordIdOf,
} from "../../api/events.ts";
import { sessionQuery } from "../../api/session.ts";
import { AudienceSection } from "../../modules/automations/AudienceSection.tsx";
import { CardFitNotice } from "../../modules/automations/components/CardFitNotice.tsx";
import { DraftOffer } from "../../modules/automations/components/DraftOffer.tsx";
import { DryRunResult } from "../../modules/automations/components/DryRunResult.tsx";
import { FilterEditor } from "../../modules/automations/components/FilterEditor.tsx";
import { LiveProof, type ProofSample } from "../../modules/automations/components/LiveProof.tsx";
import { MessageField } from "../../modules/automations/components/MessageField.tsx";
import { TurningOff } from "../../modules/automations/components/TurningOff.tsx";
import {
  type DraftOwner,
  dropDraft,
  type KeptDraft,
  keepDraft,
  readDraft,
  restoredValues,
} from "../../modules/automations/drafts.ts";
import { eventTypeDescription } from "../../modules/automations/event-type-words.ts";
import {
  type AutomationFormValues,
  automationLinkSelector,
  blankAutomation,
  CARD_SIZES,
  cardFitInputOf,
  differsFromSaved,
  draftOf,
  dryRunInputOf,
  EMPTY_OFFER_HINT,
  EVENT_TYPE_PATTERN,
  formFieldOf,
  formValuesOf,
  KINDS,
  newAutomationOf,
  OBJECT_TYPES,
  proofInputOf,
  proofRecipientOf,
  templateOf,
  validateAutomation,
} from "../../modules/automations/form-model.ts";
import { HoldoutSection } from "../../modules/automations/HoldoutSection.tsx";
import { TestCardAction } from "../../modules/automations/TestCardAction.tsx";
import {
  AutomationSafetySection,
  NewAutomationSafety,
} from "../../modules/mail-safety/AutomationSafetyForm.tsx";
import { useAutomationSafetyEdit } from "../../modules/mail-safety/safety-edit.ts";
import {
  isAboutNeighbours,
  NeighbourPreviewResult,
} from "../../modules/neighbours/NeighbourPreviewResult.tsx";
import { focusFirstInvalid, focusWhenShown, refocusAfterBusy } from "../../ui/focus.ts";
import { formatDateTime } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { PhoneProof } from "../../ui/PhoneProof.tsx";
import { LoadError, PageHeader } from "../../ui/states.tsx";
import { UnsavedChangesPrompt } from "../../ui/UnsavedChangesPrompt.tsx";
import { FollowUpCards } from "./FollowUpCards.tsx";

const newRoute = getRouteApi("/signed-in/automations/new");
const editRoute = getRouteApi("/signed-in/automations/$automationId");

export function AutomationNewPage() {
  const { event_type } = newRoute.useSearch();
  return <AutomationBuilder initial={blankAutomation(event_type ?? "")} />;
}

export function AutomationEditPage() {
  const { automationId } = editRoute.useParams();
  const { data } = useSuspenseQuery(automationQuery(automationId));
  // The newest sample, when the route already has it: the form starts with it, so the proof the route
  // asked for shows on the first render instead of after the sample is picked.
  const eventType = data.trigger?.event_type?.trim() ?? "";
  const samples = useQuery({ ...eventSamplesQuery(eventType), enabled: false });
  const initial = { ...formValuesOf(data), sample_id: samples.data?.[0]?.id ?? "" };
  return <AutomationBuilder key={data.id} existing={data} initial={initial} />;
}

function AutomationBuilder({ initial, existing }: { initial: AutomationFormValues; existing?: Automation }) {
  const navigate = useNavigate();
  const create = useCreateAutomation();
  const update = useUpdateAutomation(existing?.id ?? "");
  const dryRun = useDryRun();
  const form = useForm<AutomationFormValues>({ initialValues: initial, validate: validateAutomation });
  // What leaving would lose is measured against this: the automation as saved, or as a new one starts.
  const [saved, setSaved] = useState(initial);
  const objectTypePicked = useRef(false);
  // Save and Test sit under the whole form: a field they find wrong (the name, at the top) takes the focus.
  const formRef = useRef<HTMLFormElement>(null);
  const saveButton = useRef<HTMLButtonElement>(null);
  const testButton = useRef<HTMLButtonElement>(null);
  // A saved automation's Safety section is saved by the same Save: its changes count as unsaved too.
  const safety = useAutomationSafetyEdit(existing?.id);
  const formUnsaved = differsFromSaved(form.values, saved);
  const unsaved = formUnsaved || safety.unsaved;

  // Unsaved values are kept for this person, organization and automation while they differ from the
  // saved ones (drafts.ts), so a session that ends mid-edit loses nothing: opened again, the builder
  // offers them back. A kept draft is offered before anything is kept again over it.
  const { data: session } = useSuspenseQuery(sessionQuery());
  const { id: orgId } = session.organization;
  const { id: userId } = session.user;
  const automationId = existing?.id ?? "new";
  const draftOwner: DraftOwner = { orgId, userId, automationId };
  const [offered, setOffered] = useState<KeptDraft | null>(() => {
    const kept = readDraft(draftOwner);
    const worthOffering =
      kept && (differsFromSaved(restoredValues(initial, kept), initial) || kept.safety !== undefined);
    return worthOffering ? kept : null;
  });
  // The Safety section's values go in the draft only while they differ from the saved settings.
  const unsavedSafety = safety.unsaved ? safety.values : undefined;
  useEffect(() => {
    const owner = { orgId, userId, automationId };
    if (offered) return;
    if (formUnsaved || unsavedSafety) keepDraft(owner, form.values, unsavedSafety);
    else dropDraft(owner);
  }, [offered, formUnsaved, form.values, unsavedSafety, orgId, userId, automationId]);
  const nameField = useRef<HTMLInputElement>(null);
  const restoreDraft = (kept: KeptDraft) => {
    // What the contractor had chosen, object type included: the sample no longer fills it in.
    objectTypePicked.current = true;
    form.setValues(restoredValues(form.values, kept));
    if (kept.safety) safety.restore(kept.safety);
    setOffered(null);
    refocusAfterBusy(() => nameField.current);
  };
  // Answered, the question goes with its buttons: the focus goes to the form's first field, not <body>.
  const discardDraft = () => {
    dropDraft(draftOwner);
    setOffered(null);
    refocusAfterBusy(() => nameField.current);
  };

  const eventTypes = useQuery(eventTypesQuery());
  const eventType = form.values.event_type.trim();
  const samples = useQuery({
    ...eventSamplesQuery(eventType),
    enabled: EVENT_TYPE_PATTERN.test(eventType),
    refetchInterval: lookAgainWhileEmpty,
  });
  const sample = samples.data?.find((item) => item.id === form.values.sample_id);
  // The builder picks the newest sample itself: the proof says "you picked" only for the person's own pick.
  const [samplePickedByYou, setSamplePickedByYou] = useState(false);
  const proofSample: ProofSample | undefined = sample && {
    place: samplePlace(sample),
    pickedByYou: samplePickedByYou,
    newest: sample.id === samples.data?.[0]?.id,
  };
  // Until the samples are in and the newest one is picked, the proof waits rather than draw example data.
  const sampleSettled =
    !samples.isLoading && (!samples.data || samples.data.length === 0 || sample !== undefined);

  // The newest sample of the chosen type is the one the proof and the test use until another is picked.
  useEffect(() => {
    if (!samples.data) return;
    if (!samples.data.some((item) => item.id === form.values.sample_id)) {
      form.setFieldValue("sample_id", samples.data[0]?.id ?? "");
      setSamplePickedByYou(false);
    }
    // A new automation's object type follows the sample until the contractor picks one ("Any"
    // included). A saved automation keeps its own: "Any" is a choice, never filled in behind it.
    if (!existing && !objectTypePicked.current && !form.values.object_type) {
      const objectType = samples.data[0]?.object_type;
      if (objectType === "job" || objectType === "deal" || objectType === "contact") {
        form.setFieldValue("object_type", objectType);
        // Filled in by the builder: no change of the contractor's.
        setSaved((previous) => (previous.object_type ? previous : { ...previous, object_type: objectType }));
      }
    }
  }, [samples.data, form.values.sample_id, form.values.object_type, form.setFieldValue, existing]);

  const save = form.onSubmit(
    async (values) => {
      // A refused safety setting saves nothing: its field says why and takes the focus.
      if (Object.keys(safety.problems).length > 0) return focusFirstInvalid(formRef.current);
      // The safety settings go first: refused (a member loosening them: 403), nothing is saved.
      const safetyChanged = safety.unsaved;
      let safetySaved = false;
      try {
        if (existing) {
          await safety.saveChanges();
          safetySaved = safetyChanged;
          await update.mutateAsync(draftOf(values));
          dropDraft(draftOwner);
          form.resetDirty();
          setSaved(values);
          notifications.show({
            color: "green",
            title: "Automation saved",
            message: `${values.name} is saved.`,
          });
          // Save, disabled while it spun, lets the focus fall to the page: it gets it back.
          refocusAfterBusy(() => saveButton.current);
        } else {
          const created = await create.mutateAsync(newAutomationOf(values));
          dropDraft(draftOwner);
          notifications.show({
            color: "green",
            title: "Automation saved",
            message: `${created.name} is saved.`,
          });
          // Saved: leaving loses nothing, though the form still differs from a blank new automation.
          await navigate({ to: "/automations", ignoreBlocker: true });
          // The list opens with the new automation's row: the keyboard goes on from its link.
          focusWhenShown(() => document.querySelector<HTMLElement>(automationLinkSelector(created.id)));
        }
      } catch (error) {
        // The session ended (expired, signed out elsewhere): the values are kept as a draft and the
        // contractor signs in again, back to this builder, which offers them (no toast: sign-in says why).
        if (error instanceof ApiError && error.status === 401) {
          keepDraft(draftOwner, values, unsavedSafety);
          await navigate({
            to: "/sign-in",
            search: { redirect: window.location.pathname, reason: "session_ended" },
            ignoreBlocker: true,
          });
          return;
        }
        if (safetySaved) {
          notifications.show({
            color: "yellow",
            title: "Partly saved",
            message: "The safety settings are saved. Your other changes are not.",
          });
        }
        // What was typed stays; the server's complaints land on their fields (the Safety section's
        // own, when it was refused, are on its fields already).
        const safetyRefused = existing && safetyChanged && !safetySaved;
        if (safetyRefused) focusFirstInvalid(formRef.current);
        else if (error instanceof ApiError) {
          const fields = error.fieldErrors();
          form.setErrors(
            Object.fromEntries(
              Object.entries(fields).map(([field, message]) => [formFieldOf(field), message]),
            ),
          );
          focusFirstInvalid(formRef.current);
        }
        refocusAfterBusy(() => saveButton.current);
      }
    },
    () => focusFirstInvalid(formRef.current),
  );

  const runTest = async () => {
    const problems = form.validate();
    if (problems.hasErrors) focusFirstInvalid(formRef.current);
    if (problems.hasErrors || !form.values.sample_id) return;
    await dryRun.mutateAsync(dryRunInputOf(form.values, existing?.id)).catch(() => undefined);
    refocusAfterBusy(() => testButton.current);
  };

  const eventTypeOptions = (eventTypes.data ?? []).map((type) => type.event_type);
  const eventTypeListId = useId();
  const proofRecipient = proofRecipientOf(form.values);
  // The first screenful (name, trigger, audience, the proof) renders first; the rest of the form right
  // after, as a deferred render the browser can paint between: the whole form at once held a first
  // visit's screen for ~0.5 s on a 2-core machine.
  const restShown = useDeferredValue(true, false);
  const propertyKeys = sample?.property_keys ?? [];

  return (
    <>
      <PageHeader
        title={existing ? existing.name : "New automation"}
        description={
          <AnchorLink to="/automations" size="sm">
            Back to Automations
          </AnchorLink>
        }
      />
      <form ref={formRef} onSubmit={save} noValidate>
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, md: 7 }}>
            <Stack gap="lg">
              <TextInput
                ref={nameField}
                label="Name"
                placeholder="e.g. Job done postcard"
                maxLength={200}
                required
                {...form.getInputProps("name")}
              />

              <Fieldset legend="When">
                <Stack>
                  <TextInput label="Trigger" value="An event your CRM sends" readOnly />
                  {/* The browser's own suggestions (a datalist): Mantine's Autocomplete and Select placed their
                      closed dropdowns on the first render, ~0.2 s of a first visit for these two fields. */}
                  <TextInput
                    label="Event type"
                    description={eventTypeDescription(form.values.event_type, eventTypeOptions)}
                    placeholder="e.g. job.completed"
                    list={eventTypeListId}
                    autoComplete="off"
                    required
                    {...form.getInputProps("event_type")}
                  />
                  <datalist id={eventTypeListId}>
                    {eventTypeOptions.map((type) => (
                      <option key={type} value={type} />
                    ))}
                  </datalist>
                  {eventTypes.isError && (
                    <LoadError error={eventTypes.error} retry={() => eventTypes.refetch()} />
                  )}
                  {/* Native selects for short fixed lists: a Combobox each placed its closed dropdown on the first render. */}
                  <NativeSelect
                    label="Object type"
                    description="What the event is about in your CRM"
                    data={[{ value: "", label: "Any" }, ...OBJECT_TYPES]}
                    {...form.getInputProps("object_type")}
                    onChange={(event) => {
                      objectTypePicked.current = true;
                      form.setFieldValue(
                        "object_type",
                        event.currentTarget.value as AutomationFormValues["object_type"],
                      );
                    }}
                  />
                  <NativeSelect
                    label="Kind"
                    description="A won deal's card goes to a customer on purpose (thanks, referrals)"
                    data={[...KINDS]}
                    {...form.getInputProps("kind")}
                  />
                  <SampleSelect
                    samples={samples}
                    eventType={eventType}
                    value={form.values.sample_id}
                    onChange={(id) => {
                      form.setFieldValue("sample_id", id);
                      setSamplePickedByYou(true);
                    }}
                  />
                </Stack>
              </Fieldset>

              <AudienceSection form={form} />

              {restShown && (
                <>
                  <Fieldset legend="Who gets a card">
                    <FilterEditor form={form} propertyKeys={propertyKeys} />
                  </Fieldset>

                  <HoldoutSection form={form} />

                  <Fieldset legend="The card">
                    <Stack>
                      <TextInput label="Headline" required {...form.getInputProps("headline")} />
                      <MessageField form={form} propertyKeys={propertyKeys} />
                      <TextInput
                        label="Offer"
                        description={`Printed as its own line, e.g. 10% off gutter cleaning this spring. ${EMPTY_OFFER_HINT}`}
                        {...form.getInputProps("offer")}
                      />
                      <NativeSelect
                        label="Card size"
                        data={[...CARD_SIZES]}
                        {...form.getInputProps("card_size")}
                      />
                      <CardFitNotice input={cardFitInputOf(templateOf(form.values), proofRecipient)} />
                    </Stack>
                  </Fieldset>

                  <FollowUpCards
                    form={form}
                    recipient={proofRecipient}
                    sample={proofSample}
                    recordKnown={sampleSettled}
                    resultsByStep={existing?.follow_up_cards.by_step}
                  />

                  {existing ? (
                    <AutomationSafetySection edit={safety} />
                  ) : (
                    <NewAutomationSafety
                      approval={form.getInputProps("approval_required", { type: "checkbox" })}
                      isOwner={session.role === "owner"}
                    />
                  )}

                  <Switch
                    label="Enabled"
                    description="When off, events are received but no card is made, and follow-up cards still to go stop."
                    {...form.getInputProps("enabled", { type: "checkbox" })}
                  />
                  {existing?.enabled && !form.values.enabled && <TurningOff automation={existing} />}

                  <Stack gap="xs">
                    <Group>
                      <Button
                        ref={testButton}
                        variant="default"
                        onClick={runTest}
                        loading={dryRun.isPending}
                        disabled={!form.values.sample_id}
                      >
                        Test with a sample
                      </Button>
                      <Button
                        ref={saveButton}
                        type="submit"
                        loading={create.isPending || update.isPending || safety.saving}
                      >
                        Save
                      </Button>
                    </Group>
                    {!form.values.sample_id && (
                      <Text size="sm" c="dimmed">
                        {session.role !== "owner"
                          ? "Testing needs a sample: send an event of this type first."
                          : existing
                            ? "Testing needs a sample: send an event of this type, or a test card below."
                            : "Testing needs a sample: send an event of this type, or save the automation and send yourself a test card from it."}
                      </Text>
                    )}
                    {dryRun.isError && <LoadError error={dryRun.error} title="The test could not run" />}
                    {dryRun.data &&
                      (form.values.audience === "neighbours" && isAboutNeighbours(dryRun.data) ? (
                        <NeighbourPreviewResult result={dryRun.data} />
                      ) : (
                        <DryRunResult result={dryRun.data} />
                      ))}
                    {existing && session.role === "owner" && (
                      <TestCardAction
                        automation={existing}
                        unsaved={unsaved}
                        mailsNeighbours={form.values.audience === "neighbours"}
                      />
                    )}
                  </Stack>
                </>
              )}
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            <div style={{ position: "sticky", top: 72 }}>
              <LiveProof recordKnown={sampleSettled} sample={proofSample} input={proofInputOf(form.values)} />
            </div>
          </Grid.Col>
        </Grid>
      </form>
      <PhoneProof>
        <LiveProof recordKnown={sampleSettled} sample={proofSample} input={proofInputOf(form.values)} />
      </PhoneProof>
      <UnsavedChangesPrompt unsaved={unsaved} onLeave={() => dropDraft(draftOwner)} />
      {offered && (
        <DraftOffer
          savedAt={offered.savedAt}
          isNew={!existing}
          onRestore={() => restoreDraft(offered)}
          onDiscard={discardDraft}
        />
      )}
    </>
  );
}

/** Where a sample record is: its street, else its record id. */
const samplePlace = (sample: EventSample) => propertiesOf(sample).street ?? recordIdOf(sample) ?? sample.id;

function SampleSelect({
  samples,
  eventType,
  value,
  onChange,
}: {
  samples: UseQueryResult<EventSample[]>;
  eventType: string;
  value: string;
  onChange: (id: string) => void;
}) {
  if (!EVENT_TYPE_PATTERN.test(eventType)) {
    return (
      <Text size="sm" c="dimmed">
        Pick an event type to see the records your CRM sent with it.
      </Text>
    );
  }
  if (samples.isError) return <LoadError error={samples.error} retry={() => samples.refetch()} />;
  const options = (samples.data ?? []).map((sample) => ({
    value: sample.id,
    label: `${formatDateTime(sample.received_at)} · ${samplePlace(sample)}`,
  }));
  return (
    <NativeSelect
      label="Sample record"
      description={
        samples.isPending
          ? "Loading samples…"
          : options.length === 0
            ? "No event of this type yet. Send one to use its record here."
            : "Filters offer its properties; the proof and the test use it."
      }
      data={value ? options : [{ value: "", label: "" }, ...options]}
      value={value}
      onChange={(event) => event.currentTarget.value && onChange(event.currentTarget.value)}
      disabled={options.length === 0}
    />
  );
}
