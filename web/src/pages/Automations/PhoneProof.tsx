import { Affix, Box, Button, Drawer } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import type { ProofInput } from "../../api/automations.ts";
import { LiveProof } from "../../modules/automations/components/LiveProof.tsx";

/**
 * Below the `md` breakpoint the builder's proof column falls under the whole form, out of sight of the
 * field being edited. There a "Preview card" button floats at the bottom right of the screen and opens
 * the same live proof in a sheet from the bottom; closing it puts the contractor back on the field
 * (focus returns to the button, the page keeps its scroll). From `md` up nothing shows: the proof
 * stands beside the form. CSS decides (`hiddenFrom`), so no width is measured and nothing re-renders
 * on a resize. The proof under the form stays for whoever scrolls to the end; both read one query.
 */
export function PhoneProof({ input, recordKnown }: { input: ProofInput; recordKnown: boolean }) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      {/* Room at the end of the page, so the button never covers the form's last line for good. */}
      <Box hiddenFrom="md" h={64} aria-hidden />
      {/* Under the app's navigation drawer (z-index 100), which covers it when open. */}
      <Affix hiddenFrom="md" position={{ bottom: 16, right: 16 }} zIndex={99}>
        <Button onClick={open} radius="xl" style={{ boxShadow: "var(--mantine-shadow-md)" }}>
          Preview card
        </Button>
      </Affix>
      {/* As tall as the proof (the screen at most, then it scrolls), over the form's upper part. */}
      <Drawer
        opened={opened}
        onClose={close}
        position="bottom"
        title="Card preview"
        styles={{ content: { height: "auto" } }}
      >
        <LiveProof recordKnown={recordKnown} input={input} />
      </Drawer>
    </>
  );
}
