import { Text } from "@mantine/core";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";
import { approvalCostWords, approvalWhenWords } from "./approval-words.ts";

/**
 * Asks before the cards chosen in Approvals go to print: approving spends money, so "Approve
 * selected" says how many cards print and, with a cost per card set, what they cost (a card's own
 * Approve, beside its proofs, stays one step). One card is named by its home. It is a
 * `ConfirmDialog`: in flight nothing closes it, it closes itself once the cards are approved and
 * shows a failure in itself, the cards still waiting.
 */
export function ApproveCardsDialog({
  opened,
  cards,
  costPerCardCents,
  waitingForCap,
  capOpensOn,
  onClose,
  onConfirm,
  onFocusLost,
}: {
  opened: boolean;
  /** Kept while the dialog fades out after closing, so its words do not change on the way. */
  cards: readonly { address: string }[];
  /** The organization profile's cost per card; null when none is set. */
  costPerCardCents: number | null;
  /** How many of the cards a monthly cap would hold (`cardsWaitingForCap`). */
  waitingForCap: number;
  /** The day a used-up cap opens again, as the page says it ("Jan 1"). */
  capOpensOn?: string;
  onClose: () => void;
  /** Approves the cards; rejects with the failure to show. */
  onConfirm: () => Promise<void>;
  /** Once closed, when the button that opened it cannot take the focus back: gives it to what is there now. */
  onFocusLost?: () => void;
}) {
  const count = cards.length;
  const one = count === 1;
  return (
    <ConfirmDialog
      opened={opened}
      title={one ? "Approve this card for print?" : `Approve ${count} cards for print?`}
      keepLabel="Go back"
      confirmLabel={one ? "Approve the card" : `Approve ${count} cards`}
      pendingLabel={one ? "Approving the card…" : `Approving ${count} cards…`}
      failureTitle={one ? "The card was not approved" : "The cards were not approved"}
      danger={false}
      onClose={onClose}
      onConfirm={onConfirm}
      onFocusLost={onFocusLost}
    >
      <Text>
        {one ? (
          <>
            The card to <strong>{cards[0]?.address}</strong> will be printed and mailed
          </>
        ) : (
          `These ${count} cards will be printed and mailed`
        )}
        {approvalCostWords(count, costPerCardCents)}
      </Text>
      <Text size="sm">{approvalWhenWords(count, waitingForCap, capOpensOn)}</Text>
    </ConfirmDialog>
  );
}
