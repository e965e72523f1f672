import {
  Alert,
  Anchor,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import {
  type Delivery,
  deliveriesQuery,
  type Subscription,
  subscriptionsQuery,
  useCreateSubscription,
  useDeleteSubscription,
  useRotateSubscriptionSecret,
  useTestSubscription,
} from "../../api/developers.ts";
import { ApiError, isInputRefused } from "../../api/errors.ts";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";
import { focusFirstRefused, focusIsLost, useRefocusAfterBusy } from "../../ui/focus.ts";
import { formatDateTime } from "../../ui/format.ts";
import { useInFlightModal } from "../../ui/in-flight-modal.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { EmptyState, LoadError, Loading } from "../../ui/states.tsx";
import { CodeSnippet } from "./CodeSnippet.tsx";
import { subscribeCurl } from "./snippets.ts";

/** Why nothing was answered, in words. */
const UNANSWERED_WORDS: Record<string, string> = {
  blocked: "Blocked (not a public address)",
  timeout: "No answer in time",
  error: "Could not connect",
};

/**
 * A delivery's result: delivered (the receiver answered 2xx) or not, marked so at a glance. A lead
 * not delivered is not sent again (docs/webhooks.md): the words say where it can still be found.
 */
function DeliveryOutcome({ delivery }: { delivery: Delivery }) {
  const answered = delivery.outcome === "attempted" && delivery.status_code !== null;
  const delivered = answered && delivery.status_code! >= 200 && delivery.status_code! < 300;
  const reason = answered
    ? `Refused by the receiver (${delivery.status_code})`
    : (UNANSWERED_WORDS[delivery.outcome] ?? delivery.outcome);
  return (
    <Stack gap={2} align="flex-start">
      <Badge color={delivered ? "teal.9" : "red.9"} variant="filled">
        {delivered ? "Delivered" : "Not delivered"}
      </Badge>
      <Text size="sm">{delivered ? `Answered ${delivery.status_code}` : reason}</Text>
      {!delivered && !delivery.test && (
        <Text size="xs" c="dimmed">
          Not sent again: the lead is in Leads.
        </Text>
      )}
      {delivery.error && <Text size="xs">{delivery.error}</Text>}
    </Stack>
  );
}

export function WebhooksPanel() {
  const subscriptions = useQuery(subscriptionsQuery());
  const [addOpened, addModal] = useDisclosure(false);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  // Asked here, not in the card: the card goes once its endpoint is deleted, the dialog closes after.
  const [deleting, setDeleting] = useState<Subscription | null>(null);
  // Where the focus goes once a deleted endpoint's card (and its Delete button) is gone.
  const addRef = useRef<HTMLButtonElement>(null);

  if (subscriptions.isPending) return <Loading label="Loading webhook subscriptions" />;
  if (subscriptions.isError) {
    if (subscriptions.error instanceof ApiError && subscriptions.error.status === 403) {
      return (
        <Alert title="Only owners manage webhooks">
          A webhook's address can carry your CRM's own secret, so only an owner of your organization sees and
          changes them.
        </Alert>
      );
    }
    return <LoadError error={subscriptions.error} retry={() => subscriptions.refetch()} />;
  }
  const addButton = (
    <Button ref={addRef} onClick={addModal.open}>
      Add endpoint
    </Button>
  );
  const list = subscriptions.data.subscriptions;

  return (
    <Stack>
      {list.length === 0 ? (
        <EmptyState title="No webhook endpoints yet" action={addButton}>
          <Stack gap="sm">
            <Text size="sm">
              Porchlight posts each new lead to your CRM's webhook address, signed so your CRM can check it
              came from here. Add the address your CRM (or Zapier) gave you, or let your developer subscribe
              with an API key:
            </Text>
            <CodeSnippet label="Subscribe command" code={subscribeCurl(window.location.origin)} />
          </Stack>
        </EmptyState>
      ) : (
        <>
          <Group justify="space-between" align="flex-start">
            <Text size="sm" maw={640}>
              Each new lead is posted to every endpoint below. "Send test" posts a sample lead (marked{" "}
              <Code>"test": true</Code>), signed like a real one. How to check a signature:{" "}
              <Anchor href="/docs">API docs</Anchor>.
            </Text>
            {addButton}
          </Group>
          {list.map((subscription) => (
            <SubscriptionCard
              key={subscription.id}
              subscription={subscription}
              onSecret={(value, returnTo) => setSecret({ title: "New signing secret", value, returnTo })}
              onDelete={() => setDeleting(subscription)}
            />
          ))}
        </>
      )}
      <AddEndpointModal
        opened={addOpened}
        onClose={addModal.close}
        onCreated={(value) => {
          addModal.close();
          setSecret({ title: "Endpoint added", value, returnTo: addRef.current });
        }}
      />
      <SecretModal secret={secret} onClose={() => setSecret(null)} />
      <DeleteModal
        subscription={deleting}
        onClose={() => setDeleting(null)}
        onFocusLost={() => addRef.current?.focus()}
      />
    </Stack>
  );
}

function SubscriptionCard({
  subscription,
  onSecret,
  onDelete,
}: {
  subscription: Subscription;
  /** Shows a new secret; `returnTo` takes the focus once it is dismissed. */
  onSecret: (secret: string, returnTo: HTMLElement | null) => void;
  /** Asks whether to delete the endpoint. */
  onDelete: () => void;
}) {
  const test = useTestSubscription();
  const sendTestButton = useRefocusAfterBusy(test.isPending);
  const [rotating, setRotating] = useState(false);
  const rotateRef = useRef<HTMLButtonElement>(null);
  const [showAll, setShowAll] = useState(false);
  const headingId = `subscription-${subscription.id}`;

  return (
    <Paper withBorder p="md" component="section" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs">
          <Stack gap={4} style={{ minWidth: 0, flex: "1 1 280px" }}>
            <Title order={2} size="h5" id={headingId} style={{ wordBreak: "break-all" }}>
              {subscription.target_url}
            </Title>
            <Group gap="xs">
              {subscription.signed ? (
                <Badge variant="filled" color="teal.9">
                  Signed
                </Badge>
              ) : (
                <Badge variant="outline" color="red.9">
                  Unsigned: rotate the secret to sign
                </Badge>
              )}
              <Text size="xs">Added {formatDateTime(subscription.created_at)}</Text>
            </Group>
          </Stack>
          <Group gap="xs">
            {/* Shown disabled while the test is delivered, yet focusable (data-disabled, not disabled):
                the press's focus comes back to it, rather than falling to the page until the test is done. */}
            <Button
              ref={sendTestButton}
              size="xs"
              loading={test.isPending}
              data-disabled={subscription.test_pending || undefined}
              aria-disabled={subscription.test_pending || undefined}
              onClick={() => {
                if (!subscription.test_pending) test.mutate(subscription.id);
              }}
            >
              Send test
            </Button>
            <Button ref={rotateRef} size="xs" variant="default" onClick={() => setRotating(true)}>
              Rotate secret
            </Button>
            <Button size="xs" variant="outline" color="red.9" onClick={onDelete}>
              Delete
            </Button>
          </Group>
        </Group>
        {subscription.test_pending && (
          <Text size="sm" role="status">
            Test delivery queued; its result appears below in a moment.
          </Text>
        )}
        {test.isError && (
          <Alert color="red" title="The test could not be queued">
            {test.error.message}
          </Alert>
        )}
        {showAll ? (
          <AllDeliveries subscription={subscription} />
        ) : (
          <DeliveriesTable
            label={`Recent deliveries to ${subscription.target_url}`}
            deliveries={subscription.recent_deliveries}
          />
        )}
        {subscription.recent_deliveries.length > 0 && (
          <Group>
            <Button size="xs" variant="subtle" aria-expanded={showAll} onClick={() => setShowAll(!showAll)}>
              {showAll ? "Show recent deliveries only" : "Show all deliveries"}
            </Button>
          </Group>
        )}
      </Stack>
      <RotateModal
        subscription={rotating ? subscription : null}
        onClose={() => setRotating(false)}
        onRotated={(secret) => {
          setRotating(false);
          onSecret(secret, rotateRef.current);
        }}
      />
    </Paper>
  );
}

function AllDeliveries({ subscription }: { subscription: Subscription }) {
  const deliveries = useQuery(deliveriesQuery(subscription.id));
  if (deliveries.isPending) return <Loading label="Loading deliveries" />;
  if (deliveries.isError) return <LoadError error={deliveries.error} retry={() => deliveries.refetch()} />;
  return (
    <DeliveriesTable
      label={`All deliveries to ${subscription.target_url}`}
      deliveries={deliveries.data.deliveries}
    />
  );
}

function DeliveriesTable({ label, deliveries }: { label: string; deliveries: Delivery[] }) {
  if (deliveries.length === 0) {
    return (
      <Text size="sm">
        Nothing delivered yet: a delivery is made when a lead comes in, or with "Send test".
      </Text>
    );
  }
  return (
    <ScrollTable label={label} minWidth={320}>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>When</Table.Th>
            <Table.Th>Lead</Table.Th>
            <Table.Th>Result</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {deliveries.map((delivery) => (
            <Table.Tr key={delivery.id}>
              <Table.Td>{formatDateTime(delivery.created_at)}</Table.Td>
              <Table.Td>
                {delivery.test ? (
                  "Test"
                ) : (
                  <AnchorLink to="/leads/$leadId" params={{ leadId: delivery.lead_id }}>
                    {delivery.attempt > 1 ? `Lead (attempt ${delivery.attempt})` : "Lead"}
                  </AnchorLink>
                )}
              </Table.Td>
              <Table.Td>
                <DeliveryOutcome delivery={delivery} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollTable>
  );
}

function AddEndpointModal({
  opened,
  onClose,
  onCreated,
}: {
  opened: boolean;
  onClose: () => void;
  onCreated: (secret: string) => void;
}) {
  const create = useCreateSubscription();
  // A failure that is not the address's (no connection, the server's own problem): said in the dialog.
  const [failure, setFailure] = useState<unknown>(null);
  const form = useForm<{ target_url: string }>({
    initialValues: { target_url: "" },
    validate: {
      target_url: (value) =>
        /^https:\/\/\S+$/i.test(value.trim()) ? null : "Enter the full https:// address your CRM gave you",
    },
  });
  // A failure keeps the dialog open: Add endpoint, disabled while it spun, gets the focus back.
  const addButton = useRefocusAfterBusy(create.isPending);
  // The signing secret is shown only once: closed while it is added, it would be made and never seen.
  const inFlight = useInFlightModal(create.isPending);
  // A double-click (or Enter pressed twice) creates one, not two of which only the second is shown.
  const once = useSingleFlight((run: () => Promise<void>) => run());
  const close = () => {
    if (create.isPending || once.isRunning()) return;
    setFailure(null);
    form.reset();
    create.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title="Add a webhook endpoint" centered {...inFlight.modalProps}>
      <form
        onSubmit={form.onSubmit(
          (values) =>
            void once(async () => {
              setFailure(null);
              try {
                const created = await create.mutateAsync(values.target_url.trim());
                form.reset();
                onCreated(created.signing_secret);
              } catch (error) {
                if (isInputRefused(error))
                  form.setErrors({ target_url: error.fieldErrors().target_url ?? error.message });
                else setFailure(error);
              }
            }),
          focusFirstRefused,
        )}
        noValidate
      >
        <Stack ref={inFlight.ref}>
          <TextInput
            label="Endpoint URL"
            description="A public https address, e.g. the one your CRM or Zapier shows for an incoming webhook."
            placeholder="https://hooks.example.com/porchlight"
            required
            data-autofocus
            {...form.getInputProps("target_url")}
          />
          {failure !== null && <LoadError error={failure} title="The endpoint was not added" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} disabled={create.isPending}>
              Cancel
            </Button>
            <Button ref={addButton} type="submit" loading={create.isPending}>
              Add endpoint
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * A signing secret shown once. It opens as another dialog closes, so Mantine has no element to give
 * the focus back to: `returnTo` (the button that led here) takes it.
 */
interface ShownSecret {
  title: string;
  value: string;
  returnTo: HTMLElement | null;
}

function SecretModal({ secret, onClose }: { secret: ShownSecret | null; onClose: () => void }) {
  const returnTo = useRef<HTMLElement | null>(null);
  if (secret) returnTo.current = secret.returnTo;
  return (
    <Modal
      opened={secret !== null}
      onClose={onClose}
      title={secret?.title}
      centered
      // Shown once: put away by its button or Escape, not by a stray click beside it (the second
      // click of a double-click on Add endpoint or Rotate lands there as this dialog opens).
      closeOnClickOutside={false}
      onExitTransitionEnd={() => {
        if (focusIsLost()) returnTo.current?.focus();
      }}
    >
      {secret && (
        <Stack>
          <Alert color="yellow" title="Copy the signing secret now">
            This is the only time it is shown. Your receiver uses it to check that each delivery came from
            Porchlight.
          </Alert>
          <Code block aria-label="Signing secret" style={{ wordBreak: "break-all", whiteSpace: "pre-wrap" }}>
            {secret.value}
          </Code>
          <Group>
            <CopyButton value={secret.value}>
              {({ copied, copy }) => <Button onClick={copy}>{copied ? "Copied" : "Copy secret"}</Button>}
            </CopyButton>
            <Button variant="default" onClick={onClose}>
              Done
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function RotateModal({
  subscription,
  onClose,
  onRotated,
}: {
  subscription: Subscription | null;
  onClose: () => void;
  onRotated: (secret: string) => void;
}) {
  const rotate = useRotateSubscriptionSecret();
  return (
    <ConfirmDialog
      opened={subscription !== null}
      title="Rotate the signing secret?"
      keepLabel="Cancel"
      confirmLabel="Rotate secret"
      pendingLabel="Rotating the secret…"
      failureTitle="The secret was not rotated"
      danger={false}
      onClose={onClose}
      onConfirm={async () => {
        if (!subscription) return;
        onRotated((await rotate.mutateAsync(subscription.id)).signing_secret);
      }}
    >
      <Text size="sm">
        Deliveries are signed with the new secret from now on: until your receiver has it, it will refuse
        them.
      </Text>
    </ConfirmDialog>
  );
}

function DeleteModal({
  subscription,
  onClose,
  onFocusLost,
}: {
  subscription: Subscription | null;
  onClose: () => void;
  onFocusLost: () => void;
}) {
  const remove = useDeleteSubscription();
  return (
    <ConfirmDialog
      opened={subscription !== null}
      title="Delete this endpoint?"
      keepLabel="Keep it"
      confirmLabel="Delete endpoint"
      pendingLabel="Deleting the endpoint…"
      failureTitle="The endpoint was not deleted"
      onClose={onClose}
      onConfirm={async () => {
        if (subscription) await remove.mutateAsync(subscription.id);
      }}
      onFocusLost={onFocusLost}
    >
      <Text size="sm" style={{ wordBreak: "break-all" }}>
        New leads stop going to <strong>{subscription?.target_url}</strong>, and deliveries not yet sent to it
        are dropped.
      </Text>
    </ConfirmDialog>
  );
}
