import { Alert, Button, Group, Loader, Modal, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { type TestCardSent, useSendTestCard } from "../../api/automations.ts";
import { newRequestId } from "../../api/customers.ts";
import { ApiError, isInputRefused } from "../../api/errors.ts";
import { PIECE_STATUS, type PieceStatusTone, pieceQuery } from "../../api/mail.ts";
import { businessNameOf, organizationQuery } from "../../api/organization.ts";
import { focusFirstInvalid, focusFirstRefused, useRefocusAfterBusy } from "../../ui/focus.ts";
import { exactMoney } from "../../ui/format.ts";
import { useInFlightModal } from "../../ui/in-flight-modal.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { LoadError } from "../../ui/states.tsx";

interface Recipient {
  name: string;
  street: string;
  city: string;
  state: string;
  zip: string;
}

/** The server's bounds (app-api/routes/test-card.ts). */
const NAME_MAX = 200;
const STREET_MAX = 200;
const CITY_MAX = 100;
const ZIP = /^\d{5}(-\d{4})?$/;

const required = (label: string, max: number) => (value: string) =>
  !value.trim() ? `Enter the ${label}.` : value.trim().length > max ? `Keep it to ${max} characters.` : null;

/**
 * Mails one real card of a saved automation to an address the owner types (their office, prefilled
 * from Settings), to see the card, scan its QR code and open its landing page before any CRM is
 * connected. After sending, the dialog follows the card until the mail safety rules have decided it.
 */
export function TestCardDialog({
  opened,
  onClose,
  automation,
}: {
  opened: boolean;
  onClose: () => void;
  automation: { id: string; name: string; enabled: boolean };
}) {
  const send = useSendTestCard(automation.id);
  const organization = useQuery(organizationQuery());
  // One id per recipient as typed: a retry of what was sent is the same card, an edited address another.
  const [sending, setSending] = useState(() => ({ id: newRequestId(), recipient: "" }));
  const [sent, setSent] = useState<TestCardSent | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const sendButton = useRefocusAfterBusy(send.isPending);
  const inFlight = useInFlightModal(send.isPending);
  const profile = organization.data;
  const form = useForm<Recipient>({
    initialValues: {
      name: profile ? businessNameOf(profile) : "",
      street: profile?.return_address?.street ?? "",
      city: profile?.return_address?.city ?? "",
      state: profile?.return_address?.state ?? "",
      zip: profile?.return_address?.postal_code ?? "",
    },
    validate: {
      name: (value) => (value.trim().length > NAME_MAX ? `Keep it to ${NAME_MAX} characters.` : null),
      street: required("street and house number", STREET_MAX),
      city: required("city", CITY_MAX),
      state: required("state", 50),
      zip: (value) => (ZIP.test(value.trim()) ? null : "Enter a 5-digit ZIP code."),
    },
  });
  const submit = useSingleFlight(async (values: Recipient, formElement: HTMLFormElement | null) => {
    setFailure(null);
    const recipient = JSON.stringify(values);
    const requestId = recipient === sending.recipient ? sending.id : newRequestId();
    setSending({ id: requestId, recipient });
    try {
      const answer = await send.mutateAsync({
        request_id: requestId,
        recipient: {
          ...(values.name.trim() ? { name: values.name.trim() } : {}),
          street: values.street,
          city: values.city,
          state: values.state,
          zip: values.zip,
        },
      });
      setSent(answer);
    } catch (error) {
      const fields = isInputRefused(error) ? error.fieldErrors() : {};
      if (Object.keys(fields).length > 0) {
        form.setErrors(fields);
        focusFirstInvalid(formElement);
      } else setFailure(error);
    }
  });
  const close = () => {
    if (send.isPending || submit.isRunning()) return;
    // The next send is another card; the address typed stays for it.
    if (sent) setSending({ id: newRequestId(), recipient: "" });
    setSent(null);
    setFailure(null);
    send.reset();
    onClose();
  };
  const cost = profile?.cost_per_card_cents;

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={sent ? "Your test card" : "Send yourself a test card"}
      centered
      size="lg"
      {...inFlight.modalProps}
    >
      {sent ? (
        <Stack ref={inFlight.ref}>
          <TestCardProgress sent={sent} />
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form
          onSubmit={(event) => {
            // The dialog is drawn outside the builder's form but is its child in React's tree: its
            // submit must not reach the builder's, which would save the automation too.
            event.stopPropagation();
            form.onSubmit(
              (values, submitted) => void submit(values, submitted?.currentTarget ?? null),
              focusFirstRefused,
            )(event);
          }}
          noValidate
        >
          <Stack ref={inFlight.ref}>
            <Text size="sm">
              Porchlight mails one real card of “{automation.name}”, printed with its saved design, to the
              address below. When it arrives, scan its QR code to see the page your customers see.
            </Text>
            <Text size="sm">
              It goes through your mail safety rules like every card (hold, approval, monthly caps, and one
              card per home within your frequency cap) and costs what a card costs
              {cost != null ? ` (about ${exactMoney(cost / 100)})` : ""}. It gets no follow-up cards, and no
              other automation mails it{automation.enabled ? "" : ", even while this one is off"}. A form sent
              from its page arrives in Leads like a customer's (and goes to your CRM if it is connected).
            </Text>
            <TextInput
              label="Name on the card"
              autoComplete="off"
              data-autofocus
              {...form.getInputProps("name")}
            />
            <TextInput label="Street" required autoComplete="off" {...form.getInputProps("street")} />
            <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
              <TextInput label="City" required autoComplete="off" {...form.getInputProps("city")} />
              <TextInput label="State" required autoComplete="off" {...form.getInputProps("state")} />
              <TextInput
                label="ZIP code"
                required
                autoComplete="off"
                inputMode="numeric"
                {...form.getInputProps("zip")}
              />
            </SimpleGrid>
            {failure !== null && <LoadError error={failure} title="The test card was not sent" />}
            <Group justify="flex-end">
              <Button variant="default" onClick={close} disabled={send.isPending}>
                Cancel
              </Button>
              <Button ref={sendButton} type="submit" loading={send.isPending}>
                Mail the test card
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

const TONE_COLOR: Record<PieceStatusTone, string> = {
  progress: "teal",
  done: "teal",
  waiting: "blue",
  stopped: "yellow",
  compared: "gray",
};

/** A card just queued is written by the pipeline within moments: until then its page answers 404. */
const retryWhileBeingWritten = (failures: number, error: unknown) =>
  error instanceof ApiError && error.status === 404 ? failures < 30 : failures < 2;

/** What became of the test card: read again until the mail safety rules have decided it. */
function TestCardProgress({ sent }: { sent: TestCardSent }) {
  const piece = useQuery({ ...pieceQuery(sent.piece_id), retry: retryWhileBeingWritten, retryDelay: 1000 });
  const link = (
    <AnchorLink to="/mail/$pieceId" params={{ pieceId: sent.piece_id }}>
      Open the card
    </AnchorLink>
  );
  if (piece.isError) {
    return (
      <Text size="sm" role="status">
        The card to {sent.address} is queued. Follow it in <AnchorLink to="/mail">Mail</AnchorLink>.
      </Text>
    );
  }
  const card = piece.data;
  if (!card || card.status === "queued") {
    return (
      <Group gap="sm" role="status" wrap="nowrap">
        <Loader size="sm" aria-hidden />
        <Text size="sm">
          {sent.outcome === "duplicate" ? "This card was sent already. " : ""}Checking the card to{" "}
          {sent.address} against your mail safety rules…
        </Text>
      </Group>
    );
  }
  const waitsForApproval = card.status === "awaiting_approval";
  const testPrinter = card.provider === "local";
  return (
    <Alert
      color={TONE_COLOR[PIECE_STATUS[card.status].tone]}
      title={PIECE_STATUS[card.status].label}
      role="status"
    >
      <Stack gap={4}>
        <Text size="sm">
          The test card to {sent.address}:{" "}
          {testPrinter
            ? "the test printer took it. This Porchlight is a test set-up: nothing is printed or mailed, and the card's page shows what would print."
            : statusWords(card.status, card.status_reason)}
        </Text>
        {card.status === "skipped" && (
          <Text size="sm">
            One card per home within your frequency cap: send the next test card to another address (your
            home, a colleague's).
          </Text>
        )}
        <Text size="sm">
          {link}
          {waitsForApproval && (
            <>
              {" "}
              or approve it in <AnchorLink to="/approvals">Approvals</AnchorLink>
            </>
          )}
          .
        </Text>
      </Stack>
    </Alert>
  );
}

function statusWords(status: keyof typeof PIECE_STATUS, reason: string | null): string {
  if (reason) return `${reason.charAt(0).toLowerCase()}${reason.slice(1)}${/[.!?]$/.test(reason) ? "" : "."}`;
  if (status === "submitted") return "it has gone to the printer; it arrives in a few days.";
  if (status === "mailed" || status === "in_transit") return "it is in the mail; it arrives in a few days.";
  return `${PIECE_STATUS[status].label.toLowerCase()}.`;
}
