import { Button, Stack, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import type { Automation } from "../../api/automations.ts";
import { TestCardDialog } from "./TestCardDialog.tsx";

/**
 * The builder's "Send a test card" (owners, saved automations): one real card to see before any CRM
 * sends an event. It prints the saved card, so unsaved changes wait for Save; a neighbor automation
 * has none to send (it would mail the neighbors).
 */
export function TestCardAction({
  automation,
  unsaved,
  mailsNeighbours,
}: {
  automation: Automation;
  unsaved: boolean;
  mailsNeighbours: boolean;
}) {
  const [opened, dialog] = useDisclosure(false);
  const hint = mailsNeighbours
    ? "A test card is for automations that mail the job's own home: this one would mail the neighbors."
    : unsaved
      ? "Save first: a test card prints the saved card."
      : "Mails one real card to your office, or any address, so you can hold it and scan its QR code.";
  return (
    <Stack gap={4} align="flex-start">
      <Button variant="default" onClick={dialog.open} disabled={mailsNeighbours || unsaved}>
        Send a test card
      </Button>
      <Text size="sm" c="dimmed">
        {hint}
      </Text>
      <TestCardDialog opened={opened} onClose={dialog.close} automation={automation} />
    </Stack>
  );
}
