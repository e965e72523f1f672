import { Alert, Box, Button, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useQuery } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { PIECE_STATUS, type Piece, useResendPiece } from "../../api/mail.ts";
import { sessionQuery } from "../../api/session.ts";
import { DetailCard } from "../../ui/DetailCard.tsx";
import { focusFirstRefused } from "../../ui/focus.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { sayOnFields } from "../../ui/refusal-on-fields.ts";
import { useSingleFlight } from "../../ui/single-flight.ts";

/** The server's bounds (pieces/corrected-resend.ts). */
const ADDRESS_MAX = 300;
const NAME_MAX = 200;

/**
 * An undeliverable first card can be sent again to a corrected address (owners: it spends money);
 * once it was, the card names the one sent instead. A card sent to a corrected address names the
 * one it replaces. Nothing for any other card.
 */
export function CorrectedAddress({ piece }: { piece: Piece }) {
  if (piece.corrected_by) {
    const resent = piece.corrected_by;
    return (
      <Alert color="blue" title="Sent again to a corrected address" mb="lg">
        <Text size="sm">
          A new card was made for {resent.address}:{" "}
          <AnchorLink to="/mail/$pieceId" params={{ pieceId: resent.id }}>
            see the new card
          </AnchorLink>{" "}
          ({PIECE_STATUS[resent.status].label.toLowerCase()}).
        </Text>
      </Alert>
    );
  }
  if (piece.corrects) {
    return (
      <Text size="sm" mb="lg">
        Sent to a corrected address: it replaces the{" "}
        <AnchorLink to="/mail/$pieceId" params={{ pieceId: piece.corrects.id }}>
          card no carrier could deliver to {piece.corrects.address}
        </AnchorLink>
        .
      </Text>
    );
  }
  if (piece.status !== "undeliverable" || piece.sequence_step !== null) return null;
  return <ResendForm piece={piece} />;
}

function ResendForm({ piece }: { piece: Piece }) {
  const session = useQuery(sessionQuery());
  const resend = useResendPiece(piece.id);
  const navigate = useNavigate();
  const form = useForm<{ address: string; recipient_name: string }>({
    initialValues: { address: piece.address, recipient_name: piece.recipient_name ?? "" },
    validate: {
      address: (value) =>
        !value.trim()
          ? "Enter the corrected address."
          : value.trim().length > ADDRESS_MAX
            ? `Keep the address to ${ADDRESS_MAX} characters.`
            : null,
      recipient_name: (value) =>
        value.length > NAME_MAX ? `Keep the name to ${NAME_MAX} characters.` : null,
    },
  });
  const submit = useSingleFlight(async (values: typeof form.values, formElement: HTMLFormElement | null) => {
    try {
      const card = await resend.mutateAsync({
        address: values.address,
        ...(values.recipient_name.trim() ? { recipient_name: values.recipient_name } : {}),
      });
      notifications.show({
        color: "green",
        title: "Sent again",
        message: `A new card to ${card.address} is on its way through your mail safety rules.`,
      });
      await navigate({ to: "/mail/$pieceId", params: { pieceId: card.id } });
    } catch (error) {
      sayOnFields(error, form.setErrors, formElement);
    }
  });
  if (session.data?.role !== "owner") {
    return (
      <Text size="sm" mb="lg">
        An owner can correct the address on this page and send the card again.
      </Text>
    );
  }
  return (
    <Box mb="lg">
      <DetailCard title="Correct the address and send again">
        <form
          onSubmit={form.onSubmit(
            (values, event) => void submit(values, event?.currentTarget ?? null),
            focusFirstRefused,
          )}
          noValidate
        >
          <Stack gap="sm" maw={560}>
            <Text size="sm">
              A new card of the same {piece.automation_name ? "automation" : "mailing"} goes to the corrected
              address, through the mail safety rules (approval, hold, caps) like any other card, and is
              charged when it goes to print.{" "}
              {piece.automation_name &&
                "Correct the address in your CRM too, so its next event has it right."}
            </Text>
            <TextInput
              label="Corrected address"
              description="Street, city, state and ZIP, as the card prints them"
              required
              autoComplete="off"
              {...form.getInputProps("address")}
            />
            <TextInput
              label="Name on the card"
              autoComplete="off"
              {...form.getInputProps("recipient_name")}
            />
            <Button type="submit" loading={resend.isPending} style={{ alignSelf: "flex-start" }}>
              Send to the corrected address
            </Button>
          </Stack>
        </form>
      </DetailCard>
    </Box>
  );
}
