import {
  Alert,
  Button,
  Fieldset,
  Group,
  NumberInput,
  Stack,
  Switch,
  type SwitchProps,
  Text,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useRef, useState } from "react";
import { flushSync } from "react-dom";
import { type AutomationSafety, useCancelAutomationWaiting } from "../../api/mail-safety.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { LoadError, Loading } from "../../ui/states.tsx";
import { CapFields, HOLD_MINUTES_MAX } from "./cap-fields.tsx";
import type { AutomationSafetyEdit, SafetyValues } from "./safety-edit.ts";

function ApprovalSwitch(props: Pick<SwitchProps, "checked" | "onChange" | "disabled" | "error">) {
  return (
    <Switch
      // Mantine marks a refused switch in words only: the builder's Save finds it by aria-invalid.
      aria-invalid={props.error ? true : undefined}
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

/**
 * A saved automation's Safety, the builder's last section before its Save: hold window, approval
 * mode and the automation's monthly cap. The builder holds the edit (`useAutomationSafetyEdit`) and
 * its one Save saves these with the rest, so a change here is never left behind by a save, and
 * leaving with one unsaved asks first.
 */
export function AutomationSafetySection({ edit }: { edit: AutomationSafetyEdit }) {
  const { query, saved, values } = edit;
  return (
    <Fieldset legend="Safety" aria-describedby="safety-description">
      <Text id="safety-description" size="sm" c="dimmed" mb="sm">
        Printed mail cannot be taken back. Hold cards for a while so you can cancel them, approve each card
        before print, or cap what this automation mails a month.
      </Text>
      {query.isPending && <Loading label="Loading the safety settings" />}
      {query.isError && <LoadError error={query.error} retry={() => query.refetch()} />}
      {saved && values && <SafetyFields edit={edit} saved={saved} values={values} />}
    </Fieldset>
  );
}

function SafetyFields({
  edit,
  saved,
  values,
}: {
  edit: AutomationSafetyEdit;
  saved: AutomationSafety;
  values: SafetyValues;
}) {
  const { change, problems } = edit;
  const cancelWaiting = useCancelAutomationWaiting(saved.automation_id);
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
      {saved.paused_by_cap && (
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
        value={values.hold_minutes}
        onChange={(hold_minutes) => change({ hold_minutes })}
        error={problems.hold_minutes}
      />
      <ApprovalSwitch
        checked={values.approval_required}
        onChange={(event) => change({ approval_required: event.currentTarget.checked })}
        error={problems.approval_required}
      />
      {values.approval_required && (
        <NumberInput
          label="Auto-approve after this many approved cards"
          description={`Then the automation mails on its own. Leave empty to always ask. Approved since approval was last turned on: ${saved.approved_count} (turning it off and on again starts the count over).`}
          min={1}
          clampBehavior="none"
          value={values.auto_approve_after}
          onChange={(auto_approve_after) => change({ auto_approve_after })}
          error={problems.auto_approve_after}
        />
      )}
      <CapFields
        label="Monthly cap of this automation"
        value={values.cap}
        onChange={(cap) => change({ cap })}
        error={problems.cap}
      />
      <Group>
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
