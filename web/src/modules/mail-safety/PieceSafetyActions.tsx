import { Button, Group } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { PIECE_STATUS, type PieceStatus } from "../../api/mail.ts";
import { useApprovePiece, useCancelPiece } from "../../api/mail-safety.ts";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { CancelCardsDialog } from "./CancelCardsDialog.tsx";

/**
 * A card that waits before print can be cancelled from its page (and approved, when it awaits
 * approval). Once done, these buttons go with the card's waiting: the page's heading takes the focus
 * (`PiecePage`).
 */
export function PieceSafetyActions({
  piece,
}: {
  piece: { id: string; status: PieceStatus; address: string; card_version: string | null };
}) {
  const cancel = useCancelPiece();
  const approve = useApprovePiece();
  const [askingToCancel, setAskingToCancel] = useState(false);
  const approveOnce = useSingleFlight(() =>
    approve
      .mutateAsync({ id: piece.id, cardVersion: piece.card_version })
      .then(() =>
        notifications.show({ color: "green", title: "Approved", message: "The card goes to print." }),
      )
      .catch(() => undefined),
  );
  if (PIECE_STATUS[piece.status].tone !== "waiting") return null;

  // The dialog waits for it, shows its failure and closes itself once it is done.
  const cancelPiece = async () => {
    await cancel.mutateAsync(piece.id);
    notifications.show({ color: "green", title: "Cancelled", message: "The card will not print." });
  };

  return (
    <Group gap="xs" mb="lg">
      {piece.status === "awaiting_approval" && (
        <Button loading={approve.isPending} onClick={approveOnce}>
          Approve this card
        </Button>
      )}
      {/* Cancelling cannot be undone: it asks first. */}
      <Button color="red.9" variant="outline" onClick={() => setAskingToCancel(true)}>
        Cancel this card…
      </Button>
      <CancelCardsDialog
        opened={askingToCancel}
        cards={[piece]}
        onClose={() => setAskingToCancel(false)}
        onConfirm={cancelPiece}
      />
    </Group>
  );
}
