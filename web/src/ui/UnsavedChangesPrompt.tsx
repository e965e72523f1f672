import { Modal, Stack, Text } from "@mantine/core";
import { useBlocker } from "@tanstack/react-router";
import { ConfirmActions } from "./ConfirmActions.tsx";

/** While the blocker is on (only with unsaved changes), every navigation asks first. */
const askFirst = () => true;

/**
 * Asks before unsaved changes are left behind: a dialog for a move inside the app (a link, Back),
 * the browser's own prompt for a reload or a closed tab. Nothing is asked while `unsaved` is false;
 * a navigation that follows a save passes `ignoreBlocker`, and so does the move to sign-in when the
 * session has ended (`main.tsx`): that is not the contractor leaving.
 */
export function UnsavedChangesPrompt({
  unsaved,
  onLeave,
}: {
  unsaved: boolean;
  /** Runs when the person chooses Leave: what they chose to lose (a kept draft) can go too. */
  onLeave?: () => void;
}) {
  const blocker = useBlocker({
    shouldBlockFn: askFirst,
    enableBeforeUnload: true,
    disabled: !unsaved,
    withResolver: true,
  });
  return (
    <Modal
      opened={blocker.status === "blocked"}
      onClose={() => blocker.reset?.()}
      title="Leave without saving?"
      centered
    >
      <Stack>
        <Text size="sm">Your changes on this page are not saved. If you leave, they are lost.</Text>
        <ConfirmActions
          keepLabel="Stay"
          confirmLabel="Leave"
          busy={false}
          onKeep={() => blocker.reset?.()}
          onConfirm={() => {
            onLeave?.();
            blocker.proceed?.();
          }}
        />
      </Stack>
    </Modal>
  );
}
