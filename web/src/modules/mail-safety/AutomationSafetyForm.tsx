import {
  Alert,
  Button,
  Fieldset,
  Grid,
  Group,
  NumberInput,
  Stack,
  Switch,
  type SwitchProps,
  Text,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { flushSync } from "react-dom";
import {
  type AutomationSafety,
  automationSafetyQuery,
  useCancelAutomationWaiting,
  useUpdateAutomationSafety,
} from "../../api/mail-safety.ts";
import { useRefocusAfterBusy } from "../../ui/focus.ts";
import { AnchorLink } from "../../ui/links.tsx";
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

function ApprovalSwitch(props: Pick<SwitchProps, "checked" | "onChange" | "disabled">) {
  return (
    <Switch
      label="Approve each card before print"
      description={
        <>
          Cards wait in{" "}
          <AnchorLink to="/approvals" inherit>
            Approvals
          </AnchorLink>{" "}
          until a team member approves them.
        </>
      }
      {...props}
    />
  );
}

/**
 * A new automation's Safety, part of its form: approval is chosen before the first save, so the
 * automation can hold its very first card (the create sends it with the automation).
 */
export function NewAutomationSafety({
  approval,
  isOwner,
}: {
  approval: Pick<SwitchProps, "checked" | "onChange">;
  isOwner: boolean;
}) {
  return (
    <Fieldset legend="Safety">
      <Stack>
        {isOwner ? (
          <ApprovalSwitch {...approval} />
        ) : (
          // The server holds a member's new automation for approval whatever is sent (docs/security.md).
          <>
            <ApprovalSwitch checked disabled onChange={() => undefined} />
            <Text size="sm">
              An automation you create asks for approval of each card until an owner of your organization
              switches that off.
            </Text>
          </>
        )}
        <Text size="sm" c="dimmed">
          Once it is saved, open it again to set its hold window and monthly cap.
        </Text>
      </Stack>
    </Fieldset>
  );
}

/** The builder's Safety section: hold window, approval mode and the automation's monthly cap. */
export function AutomationSafetySection({ automationId }: { automationId: string }) {
  const safety = useQuery(automationSafetyQuery(automationId));
  return (
    // As wide as the builder's own column, so it reads as the form's last section.
    <Grid mt="xl">
      <Grid.Col span={{ base: 12, md: 7 }}>
        <Fieldset legend="Safety" aria-describedby="safety-description">
          <Text id="safety-description" size="sm" c="dimmed" mb="sm">
            Printed mail cannot be taken back. Hold cards for a while so you can cancel them, approve each
            card before print, or cap what this automation mails a month.
          </Text>
          {safety.isPending && <Loading label="Loading the safety settings" />}
          {safety.isError && <LoadError error={safety.error} retry={() => safety.refetch()} />}
          {safety.isSuccess && <SafetyForm key={JSON.stringify(safety.data)} safety={safety.data} />}
        </Fieldset>
      </Grid.Col>
    </Grid>
  );
}

/** The server's range for auto-approval (src/app-api/routes/mail-safety.ts); empty: always ask. */
const autoApproveProblem = (cards: number | string) =>
  wholeNumberProblem(cards, { min: 1, max: 100_000, unit: "approved cards", optional: true });

function SafetyForm({ safety }: { safety: AutomationSafety }) {
  const update = useUpdateAutomationSafety(safety.automation_id);
  const saveButton = useRefocusAfterBusy(update.isPending);
  const cancelWaiting = useCancelAutomationWaiting(safety.automation_id);
  const [hold, setHold] = useState<number | string>(safety.hold_minutes);
  const [approval, setApproval] = useState(safety.approval_required);
  const [autoAfter, setAutoAfter] = useState<number | string>(safety.auto_approve_after ?? "");
  const [cap, setCap] = useState(capValueOf(safety));
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  // The inline confirm swaps its buttons: the one pressed goes, and the focus with it to <body>. Each
  // swap hands it on: asked, to Keep them (the safe choice); while it runs, to the status line (Yes,
  // spinning, is disabled); kept or done, back to "Cancel all waiting cards…".
  const askButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const cancellingLine = useRef<HTMLParagraphElement>(null);
  const showConfirm = (shown: boolean) => {
    flushSync(() => setConfirmCancel(shown));
    (shown ? keepButton : askButton).current?.focus();
  };
  const problem = capProblem(cap);
  const holdProblem = holdMinutesProblem(hold);
  const autoAfterProblem = approval ? autoApproveProblem(autoAfter) : null;

  const save = useSingleFlight(async () => {
    if (problem || holdProblem || autoAfterProblem) return;
    await update
      .mutateAsync({
        hold_minutes: Number(hold),
        approval_required: approval,
        // With approval off the field is hidden: a refused number left in it keeps the saved one.
        auto_approve_after: autoApproveProblem(autoAfter)
          ? safety.auto_approve_after
          : autoAfter === ""
            ? null
            : Number(autoAfter),
        ...capPatchOf(cap),
      })
      .then(() =>
        notifications.show({ color: "green", title: "Saved", message: "The safety settings are saved." }),
      )
      .catch(() => undefined);
  });

  // A double-click on "Yes, cancel every waiting card" cancels once (and shows one notice).
  const cancelAll = useSingleFlight(async () => {
    flushSync(() => setCancelling(true));
    cancellingLine.current?.focus();
    const answer = await cancelWaiting.mutateAsync().catch(() => undefined);
    setCancelling(false);
    showConfirm(false);
    if (answer)
      notifications.show({
        color: "green",
        title: "Cancelled",
        message:
          answer.piece_ids.length === 1
            ? "1 waiting card cancelled; it will not print."
            : `${answer.piece_ids.length} waiting cards cancelled; they will not print.`,
      });
  });

  return (
    <Stack>
      {safety.paused_by_cap && (
        <Alert color="orange" title="Paused by cap">
          A monthly cap is reached: this automation's new cards wait until the next month or a higher cap.
        </Alert>
      )}
      <NumberInput
        label="Hold window (minutes)"
        description="Cards wait this long before print, so you can cancel them. 0 sends them at once."
        min={0}
        max={HOLD_MINUTES_MAX}
        clampBehavior="none"
        value={hold}
        onChange={setHold}
        error={holdProblem}
      />
      <ApprovalSwitch checked={approval} onChange={(event) => setApproval(event.currentTarget.checked)} />
      {approval && (
        <NumberInput
          label="Auto-approve after this many approved cards"
          description={`Then the automation mails on its own. Leave empty to always ask. Approved so far: ${safety.approved_count}.`}
          min={1}
          clampBehavior="none"
          value={autoAfter}
          onChange={setAutoAfter}
          error={autoAfterProblem}
        />
      )}
      <CapFields label="Monthly cap of this automation" value={cap} onChange={setCap} error={problem} />
      <Group>
        <Button ref={saveButton} variant="light" onClick={save} loading={update.isPending}>
          Save safety settings
        </Button>
        {confirmCancel ? (
          <>
            <Button color="red" onClick={cancelAll} loading={cancelling}>
              Yes, cancel every waiting card
            </Button>
            <Button
              ref={keepButton}
              variant="default"
              disabled={cancelling}
              onClick={() => showConfirm(false)}
            >
              Keep them
            </Button>
          </>
        ) : (
          <Button ref={askButton} variant="default" color="red" onClick={() => showConfirm(true)}>
            Cancel all waiting cards…
          </Button>
        )}
      </Group>
      {cancelling && (
        <Text ref={cancellingLine} tabIndex={-1} size="sm" role="status">
          Cancelling the waiting cards…
        </Text>
      )}
    </Stack>
  );
}
