import { Modal, Stack, Text } from "@mantine/core";
import { ConfirmActions } from "../../ui/ConfirmActions.tsx";
import { useSingleFlight } from "../../ui/single-flight.ts";

/**
 * Asks before cards are cancelled: a cancelled card never prints, and nothing brings it back (the
 * server has no way out of `cancelled`). One card is named by its home; more are counted. Focus
 * starts on the action, so a key shortcut's Enter confirms and Escape backs out; a double-click
 * on it cancels once.
 */
export function CancelCardsDialog({
  opened,
  cards,
  busy,
  onKeep,
  onConfirm,
  onClosed,
}: {
  opened: boolean;
  /** Kept while the dialog fades out after closing, so its words do not change on the way. */
  cards: readonly { address: string }[];
  busy: boolean;
  onKeep: () => void;
  onConfirm: () => Promise<void>;
  /** Once the dialog is gone: where focus goes when the element it came from went with the card. */
  onClosed?: () => void;
}) {
  const confirmOnce = useSingleFlight(onConfirm);
  const one = cards.length === 1;
  return (
    <Modal
      opened={opened}
      onClose={onKeep}
      title={one ? "Cancel this card?" : `Cancel ${cards.length} cards?`}
      centered
      onExitTransitionEnd={onClosed}
    >
      <Stack>
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
        <ConfirmActions
          keepLabel={one ? "Keep the card" : "Keep the cards"}
          confirmLabel={one ? "Yes, cancel the card" : `Yes, cancel ${cards.length} cards`}
          busy={busy}
          focusConfirm
          onKeep={onKeep}
          onConfirm={() => void confirmOnce()}
        />
      </Stack>
    </Modal>
  );
}
