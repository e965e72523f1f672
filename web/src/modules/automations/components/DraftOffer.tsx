import { Button, Group, Modal, Stack, Text } from "@mantine/core";
import { formatRecent } from "../../../ui/format.ts";

/**
 * Asks, as the builder opens, whether to put back the unsaved changes kept for it (`drafts.ts`): a
 * session that ended mid-edit, or a page left with changes unsaved. A question with two answers and no
 * third way out (no close button, Escape and a click outside do nothing), so the form is never edited
 * while the kept values wait. Restore is the first focus: it is what someone who just signed in again
 * to save wants.
 */
export function DraftOffer({
  savedAt,
  isNew,
  onRestore,
  onDiscard,
}: {
  savedAt: number;
  isNew: boolean;
  onRestore: () => void;
  onDiscard: () => void;
}) {
  return (
    <Modal
      opened
      onClose={() => undefined}
      withCloseButton={false}
      closeOnEscape={false}
      closeOnClickOutside={false}
      centered
      title={`Restore your unsaved changes from ${formatRecent(savedAt)}?`}
    >
      <Stack>
        <Text size="sm">
          {isNew ? "This new automation" : "This automation"} has changes you made that were not saved, for
          example because your session ended. Restore puts them back in the form; nothing is saved until you
          press Save. Discard keeps {isNew ? "a blank form" : "the automation as it is saved"}.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onDiscard}>
            Discard
          </Button>
          <Button onClick={onRestore} data-autofocus>
            Restore
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
