import { Modal, Stack, Text, VisuallyHidden } from "@mantine/core";
import { useRef, useState } from "react";
import { ConfirmActions } from "../../ui/ConfirmActions.tsx";
import { focusIsLost } from "../../ui/focus.ts";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { LoadError } from "../../ui/states.tsx";

/**
 * Asks before cards are cancelled: a cancelled card never prints, and nothing brings it back (the
 * server has no way out of `cancelled`). One card is named by its home; more are counted. Focus
 * starts on the action, so a key shortcut's Enter confirms and Escape backs out; a double-click
 * on it cancels once. While the request is in flight nothing closes it (Escape, the close button, a
 * click outside, Keep): closed, the person would not know whether the cards were cancelled. It
 * closes itself once they are, and shows a failure in itself, the cards kept, to try again or keep.
 */
export function CancelCardsDialog({
  opened,
  cards,
  onClose,
  onConfirm,
  onFocusLost,
}: {
  opened: boolean;
  /** Kept while the dialog fades out after closing, so its words do not change on the way. */
  cards: readonly { address: string }[];
  /** Closes the dialog: the cards kept, or cancelled. */
  onClose: () => void;
  /** Cancels the cards; rejects with the failure to show. */
  onConfirm: () => Promise<void>;
  /**
   * Once the dialog has closed, when the focus has nowhere to go back to (the element it came from
   * went with the cards): gives it to what is there now.
   */
  onFocusLost?: () => void;
}) {
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const body = useRef<HTMLDivElement>(null);
  const confirmOnce = useSingleFlight(async () => {
    // The action's button, which has the focus, is disabled while it runs: the focus would fall to
    // <body>, outside the dialog. The dialog itself keeps it (and after a failure, Tab goes on in it).
    body.current?.closest<HTMLElement>('[role="dialog"]')?.focus();
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
  const one = cards.length === 1;
  return (
    <Modal
      opened={opened}
      onClose={keep}
      // While it runs: no Escape, no click outside, no close button (which keeps the theme's name)…
      closeOnEscape={!pending}
      closeOnClickOutside={!pending}
      closeButtonProps={{ "aria-label": "Close", disabled: pending }}
      // …and a click outside does not take the focus out of it.
      overlayProps={{ onMouseDown: (event) => pending && event.preventDefault() }}
      title={one ? "Cancel this card?" : `Cancel ${cards.length} cards?`}
      centered
      onExitTransitionEnd={() => {
        // A failure shown last time is not shown when it opens again.
        setFailure(null);
        // Mantine gave the focus back to where it came from; gone with the cards, the focus is still
        // here, on the dialog about to be removed.
        const dialog = body.current?.closest('[role="dialog"]');
        if (focusIsLost() || dialog?.contains(document.activeElement)) onFocusLost?.();
      }}
    >
      <Stack ref={body}>
        <Text size="sm">
          {one ? (
            <>
              The card to <strong>{cards[0]?.address}</strong> will not be printed or mailed, nor any
              follow-up card after it.
            </>
          ) : (
            `These ${cards.length} cards will not be printed or mailed, nor any follow-up card after them.`
          )}{" "}
          You cannot undo this.
        </Text>
        {failure !== null && (
          <LoadError
            error={failure}
            title={one ? "The card was not cancelled" : "The cards were not cancelled"}
          />
        )}
        {/* The action's spinner, said: a live region that is there before its words are. */}
        <VisuallyHidden role="status">
          {pending ? (one ? "Cancelling the card…" : `Cancelling ${cards.length} cards…`) : ""}
        </VisuallyHidden>
        <ConfirmActions
          keepLabel={one ? "Keep the card" : "Keep the cards"}
          confirmLabel={one ? "Yes, cancel the card" : `Yes, cancel ${cards.length} cards`}
          busy={pending}
          focusConfirm
          onKeep={keep}
          onConfirm={() => void confirmOnce()}
        />
      </Stack>
    </Modal>
  );
}
