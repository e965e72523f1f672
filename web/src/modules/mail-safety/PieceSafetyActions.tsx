import { Button, Group } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { PIECE_STATUS, type PieceStatus } from "../../api/mail.ts";
import { useApprovePiece, useCancelPiece } from "../../api/mail-safety.ts";

/** A card that waits before print can be cancelled from its page (and approved, when it awaits approval). */
export function PieceSafetyActions({ piece }: { piece: { id: string; status: PieceStatus } }) {
  const cancel = useCancelPiece();
  const approve = useApprovePiece();
  if (PIECE_STATUS[piece.status].tone !== "waiting") return null;
  return (
    <Group gap="xs" mb="lg">
      {piece.status === "awaiting_approval" && (
        <Button
          loading={approve.isPending}
          onClick={() =>
            approve
              .mutateAsync(piece.id)
              .then(() =>
                notifications.show({ color: "green", title: "Approved", message: "The card goes to print." }),
              )
              .catch(() => undefined)
          }
        >
          Approve this card
        </Button>
      )}
      <Button
        color="red"
        variant="outline"
        loading={cancel.isPending}
        onClick={() =>
          cancel
            .mutateAsync(piece.id)
            .then(() =>
              notifications.show({ color: "green", title: "Cancelled", message: "The card will not print." }),
            )
            .catch(() => undefined)
        }
      >
        Cancel this card
      </Button>
    </Group>
  );
}
