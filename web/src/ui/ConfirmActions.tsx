import { Button, Group } from "@mantine/core";

/**
 * The two buttons of a dialog that confirms something that cannot be taken back: keep (plain,
 * first) and the action itself (red, or the primary color when it destroys nothing; busy while it
 * runs). While it runs, keep is disabled too: the action is under way and keeping would not stop it.
 */
export function ConfirmActions({
  keepLabel,
  confirmLabel,
  danger = true,
  busy,
  focusConfirm = false,
  onKeep,
  onConfirm,
}: {
  keepLabel: string;
  confirmLabel: string;
  /** False for an action that destroys nothing (send a mailing, rotate a secret): the primary color. */
  danger?: boolean;
  busy: boolean;
  /** The dialog opens with focus on the action, so Enter confirms (a dialog a key shortcut opens). */
  focusConfirm?: boolean;
  onKeep: () => void;
  onConfirm: () => void;
}) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onKeep} disabled={busy}>
        {keepLabel}
      </Button>
      <Button
        color={danger ? "red.9" : undefined}
        loading={busy}
        onClick={onConfirm}
        data-autofocus={focusConfirm || undefined}
      >
        {confirmLabel}
      </Button>
    </Group>
  );
}
