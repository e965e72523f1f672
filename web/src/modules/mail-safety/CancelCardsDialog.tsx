import { Text } from "@mantine/core";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";

/**
 * Asks before cards are cancelled: a cancelled card never prints, and nothing brings it back (the
 * server has no way out of `cancelled`). One card is named by its home; more are counted. Focus
 * starts on the action, so a key shortcut's Enter confirms and Escape backs out. In flight it is a
 * `ConfirmDialog`: nothing closes it, it closes itself once the cards are cancelled and shows a
 * failure in itself, the cards kept, to try again or keep.
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
  cards: readonly { address: string; sequence_step?: number | null }[];
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
  const one = cards.length === 1;
  // Cancelling a first card stops its follow-ups; cancelling a follow-up stops that card alone.
  const followUp = one ? (cards[0]?.sequence_step ?? null) : null;
  return (
    <ConfirmDialog
      opened={opened}
      title={one ? "Cancel this card?" : `Cancel ${cards.length} cards?`}
      keepLabel={one ? "Keep the card" : "Keep the cards"}
      confirmLabel={one ? "Yes, cancel the card" : `Yes, cancel ${cards.length} cards`}
      pendingLabel={one ? "Cancelling the card…" : `Cancelling ${cards.length} cards…`}
      failureTitle={one ? "The card was not cancelled" : "The cards were not cancelled"}
      focusConfirm
      onClose={onClose}
      onConfirm={onConfirm}
      onFocusLost={onFocusLost}
    >
      <Text size="sm">
        {followUp !== null ? (
          <>
            Follow-up card {followUp} to <strong>{cards[0]?.address}</strong> will not be printed or mailed.
            The sequence's other cards are kept: a later follow-up still goes on its day.
          </>
        ) : one ? (
          <>
            The card to <strong>{cards[0]?.address}</strong> will not be printed or mailed, nor any follow-up
            card after it.
          </>
        ) : (
          `These ${cards.length} cards will not be printed or mailed, nor any follow-up card after them.`
        )}{" "}
        You cannot undo this.
      </Text>
    </ConfirmDialog>
  );
}
