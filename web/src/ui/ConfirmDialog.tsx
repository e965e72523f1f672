import { Modal, Stack, VisuallyHidden } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { ConfirmActions } from "./ConfirmActions.tsx";
import { focusIsLost } from "./focus.ts";
import { useInFlightModal } from "./in-flight-modal.ts";
import { useSingleFlight } from "./single-flight.ts";
import { LoadError } from "./states.tsx";

/**
 * A dialog that asks before an action the server carries out (revoke, delete, cancel, send). While
 * its request is in flight nothing closes it (Escape, the close button, a click outside, keep):
 * closed, the person would not know whether it was done. The action spins, a status line says what
 * is under way, and the dialog itself holds the focus (the action's button, disabled, cannot). It
 * closes itself once `onConfirm` resolves and shows a rejection in itself, to try again or keep; a
 * double-click on the action runs it once. A failure shown is gone when it opens again.
 */
export function ConfirmDialog({
  opened,
  title,
  children,
  keepLabel,
  confirmLabel,
  pendingLabel,
  failureTitle,
  danger,
  focusConfirm = false,
  onClose,
  onConfirm,
  onFocusLost,
}: {
  opened: boolean;
  title: ReactNode;
  /** What the action does, and what cannot be undone. */
  children: ReactNode;
  keepLabel: string;
  confirmLabel: string;
  /** The status line while the request is in flight, e.g. "Revoking the key…". */
  pendingLabel: string;
  /** The heading of a failure shown in the dialog, e.g. "The key was not revoked". */
  failureTitle: string;
  /** False for an action that destroys nothing: the action is not red. */
  danger?: boolean;
  /** The dialog opens with the focus on the action, so Enter confirms (a dialog a key shortcut opens). */
  focusConfirm?: boolean;
  /** Closes the dialog: kept, or done. */
  onClose: () => void;
  /** Carries the action out; resolves once done (the dialog then closes), rejects with the failure to show. */
  onConfirm: () => Promise<void>;
  /**
   * Once the dialog has closed, when the focus has nowhere to go back to (the button that opened it
   * went with what it acted on): gives it to what is there now.
   */
  onFocusLost?: () => void;
}) {
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  // While it runs nothing closes it, and the dialog itself holds the focus its disabled action had
  // (after a failure, Tab goes on in it).
  const inFlight = useInFlightModal(pending);
  const confirmOnce = useSingleFlight(async () => {
    setPending(true);
    setFailure(null);
    try {
      await onConfirm();
      onClose();
    } catch (error) {
      setFailure(error);
    } finally {
      setPending(false);
    }
  });
  const keep = () => {
    if (!pending) onClose();
  };
  return (
    <Modal
      opened={opened}
      onClose={keep}
      {...inFlight.modalProps}
      title={title}
      centered
      onExitTransitionEnd={() => {
        setFailure(null);
        // Mantine gave the focus back to where it came from; gone (a removed row's button), the focus
        // is on <body> or still on the dialog about to be removed.
        if (focusIsLost() || inFlight.dialog()?.contains(document.activeElement)) onFocusLost?.();
      }}
    >
      <Stack ref={inFlight.ref}>
        {children}
        {failure !== null && <LoadError error={failure} title={failureTitle} />}
        {/* The action's spinner, said: a live region that is there before its words are. */}
        <VisuallyHidden role="status">{pending ? pendingLabel : ""}</VisuallyHidden>
        <ConfirmActions
          keepLabel={keepLabel}
          confirmLabel={confirmLabel}
          danger={danger}
          busy={pending}
          focusConfirm={focusConfirm}
          onKeep={keep}
          onConfirm={() => void confirmOnce()}
        />
      </Stack>
    </Modal>
  );
}
