import { Button, Group } from "@mantine/core";

/**
 * The two buttons of a dialog that confirms something that cannot be taken back: keep (plain,
 * first) and the action itself (red, busy while it runs).
 */
export function ConfirmActions({
  keepLabel,
  confirmLabel,
  busy,
  onKeep,
  onConfirm,
}: {
  keepLabel: string;
  confirmLabel: string;
  busy: boolean;
  onKeep: () => void;
  onConfirm: () => void;
}) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onKeep}>
        {keepLabel}
      </Button>
      <Button color="red.9" loading={busy} onClick={onConfirm}>
        {confirmLabel}
      </Button>
    </Group>
  );
}
