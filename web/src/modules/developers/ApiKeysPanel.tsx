import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Code,
  CopyButton,
  Group,
  Modal,
  Stack,
  Table,
  Text,
  TextInput,
  VisuallyHidden,
} from "@mantine/core";
import "@mantine/dates/styles.css";
import { DateInput } from "@mantine/dates";
import { useForm } from "@mantine/form";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import {
  type ApiKey,
  apiKeysQuery,
  type Scope,
  useCreateApiKey,
  useRevokeApiKey,
} from "../../api/developers.ts";
import { ApiError, isInputRefused } from "../../api/errors.ts";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";
import { focusFirstRefused, useRefocusAfterBusy } from "../../ui/focus.ts";
import { formatDateTime } from "../../ui/format.ts";
import { useInFlightModal } from "../../ui/in-flight-modal.ts";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { EmptyState, LoadError, Loading } from "../../ui/states.tsx";

/**
 * What a key may let the CRM do, in words: the API's scope names (docs/quickstart.md) stay off the
 * screen. `label` also names the choice in the key list.
 */
export const SCOPES: { value: Scope; label: string; description: string }[] = [
  {
    value: "events:write",
    label: "Send events",
    description: "Your CRM reports a finished job or another event, and your automations mail the cards.",
  },
  {
    value: "import:write",
    label: "Import past jobs",
    description:
      "Your CRM sends a list of past jobs for a later mailing to past customers. Nothing is mailed when they arrive.",
  },
  {
    value: "webhooks:inbound",
    label: "Leads, won deals and customers",
    description:
      "Your CRM receives the leads your cards bring, reports won deals, and names your customers so they get no card. It can also check the key and list your automations.",
  },
];

/**
 * What a key may do, as its row says it: a key allowed every choice reads "Everything", whether it
 * was made with every box ticked or with none named (the demo key, a key made through the API).
 */
export function keyAccessInWords(scopes: readonly string[] | null): string {
  const allowsEverything =
    scopes === null || scopes.length === 0 || SCOPES.every((scope) => scopes.includes(scope.value));
  if (allowsEverything) return "Everything";
  return scopes.map((scope) => SCOPES.find((known) => known.value === scope)?.label ?? scope).join(", ");
}

/** The longest key name the API takes. */
const KEY_NAME_MAX = 200;

const when = (iso: string | null, never = "Never") => (iso ? formatDateTime(iso) : never);

export function ApiKeysPanel() {
  const keys = useQuery(apiKeysQuery());
  const [createOpened, createModal] = useDisclosure(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  // Where the focus goes once a revoked key's row (and its Revoke button) is gone.
  const createRef = useRef<HTMLButtonElement>(null);

  if (keys.isPending) return <Loading label="Loading API keys" />;
  if (keys.isError) {
    if (keys.error instanceof ApiError && keys.error.status === 403) {
      return <Alert title="Only owners manage API keys">Ask an owner of your organization for a key.</Alert>;
    }
    return <LoadError error={keys.error} retry={() => keys.refetch()} />;
  }
  const createButton = (
    <Button ref={createRef} onClick={createModal.open}>
      Create API key
    </Button>
  );

  return (
    <Stack>
      {keys.data.keys.length === 0 ? (
        <EmptyState title="No API keys yet" action={createButton}>
          Your CRM or your developer needs a key to send events. Create one, copy it, and paste it where your
          CRM asks for it.
        </EmptyState>
      ) : (
        <>
          <Group justify="flex-end">{createButton}</Group>
          {/* What a key may do sits under its name, and its dates under each other, so the table
              fits a phone whole: spread over five columns, the pinned Revoke covered the Created date. */}
          <ScrollTable label="API keys" minWidth={340}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name and access</Table.Th>
                  <Table.Th>Dates</Table.Th>
                  <Table.Th data-row-actions>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {keys.data.keys.map((key) => (
                  <Table.Tr key={key.id}>
                    <Table.Td>
                      <Text size="sm">{key.name || "Unnamed key"}</Text>
                      <Text size="sm" c="dimmed">
                        {keyAccessInWords(key.scopes)}
                      </Text>
                      {key.demo && (
                        <Text size="sm" c="dimmed">
                          The demo key made at first start, for trying the API. Give your CRM a key of its
                          own, then revoke this one.
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <KeyDate label="Created" value={when(key.created_at)} />
                      <KeyDate label="Last used" value={when(key.last_used_at)} />
                      <KeyDate label="Expires" value={when(key.expires_at)} />
                    </Table.Td>
                    <Table.Td data-row-actions>
                      <Button
                        size="xs"
                        variant="outline"
                        color="red.9"
                        aria-label={`Revoke ${key.name || "key"}`}
                        onClick={() => setRevoking(key)}
                      >
                        Revoke
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        </>
      )}
      <CreateKeyModal opened={createOpened} onClose={createModal.close} />
      <RevokeKeyModal
        apiKey={revoking}
        onClose={() => setRevoking(null)}
        onFocusLost={() => createRef.current?.focus()}
      />
    </Stack>
  );
}

/** One of a key's dates, named: "Created Dec 1, 2026, 9:14 AM". */
export function KeyDate({ label, value }: { label: string; value: string }) {
  return (
    <Text size="sm">
      <Text span size="sm" c="dimmed">
        {label}
      </Text>{" "}
      {value}
    </Text>
  );
}

function CreateKeyModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateApiKey();
  // A failure keeps the dialog open: Create key, disabled while it spun, gets the focus back.
  const createButton = useRefocusAfterBusy(create.isPending);
  const [issued, setIssued] = useState<string | null>(null);
  // A failure no field can show (no connection, the server's own problem): said in the dialog, whose
  // values stay to try again.
  const [failure, setFailure] = useState<unknown>(null);
  const form = useForm<{ name: string; scopes: Scope[]; expires_at: string | null }>({
    initialValues: { name: "", scopes: SCOPES.map((scope) => scope.value), expires_at: null },
    validate: {
      name: (name) =>
        name.trim() === ""
          ? "Name the key after where it is used, e.g. CRM"
          : name.trim().length > KEY_NAME_MAX
            ? `Use at most ${KEY_NAME_MAX} characters`
            : null,
      scopes: (scopes) => (scopes.length === 0 ? "Pick at least one thing the key may do" : null),
    },
  });
  // The key is shown only once: closed while it is created, it would be made and never seen.
  const inFlight = useInFlightModal(create.isPending);
  // A double-click (or Enter pressed twice) creates one, not two of which only the second is shown.
  const once = useSingleFlight((run: () => Promise<void>) => run());
  const close = () => {
    if (create.isPending) return;
    setIssued(null);
    setFailure(null);
    form.reset();
    create.reset();
    onClose();
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={issued ? "Your new API key" : "Create API key"}
      centered
      {...inFlight.modalProps}
    >
      {issued ? (
        <Stack>
          <Alert color="yellow" title="Copy it now">
            This is the only time the key is shown. Store it where your CRM or developer keeps secrets.
          </Alert>
          <Code block aria-label="New API key" style={{ wordBreak: "break-all", whiteSpace: "pre-wrap" }}>
            {issued}
          </Code>
          <Group>
            <CopyButton value={issued}>
              {({ copied, copy }) => <Button onClick={copy}>{copied ? "Copied" : "Copy key"}</Button>}
            </CopyButton>
            <Button variant="default" onClick={close}>
              Done
            </Button>
          </Group>
        </Stack>
      ) : (
        <form
          onSubmit={form.onSubmit(
            (values) =>
              void once(async () => {
                setFailure(null);
                try {
                  const answer = await create.mutateAsync({
                    name: values.name.trim(),
                    scopes: values.scopes,
                    ...(values.expires_at
                      ? { expires_at: new Date(`${values.expires_at}T23:59:59`).toISOString() }
                      : {}),
                  });
                  setIssued(answer.key);
                } catch (error) {
                  const onFields = isInputRefused(error) ? error.fieldErrors() : {};
                  if (Object.keys(onFields).length > 0) form.setErrors(onFields);
                  else setFailure(error);
                }
              }),
            focusFirstRefused,
          )}
          noValidate
        >
          <Stack ref={inFlight.ref}>
            <TextInput
              label="Name"
              placeholder="e.g. CRM"
              required
              data-autofocus
              {...form.getInputProps("name")}
            />
            <Checkbox.Group
              label="What the key lets your CRM do"
              description={
                <>
                  For developers: each choice is a scope of the API; the{" "}
                  <Anchor href="/docs" size="xs">
                    API reference
                  </Anchor>{" "}
                  names the one each endpoint needs .
                </>
              }
              {...form.getInputProps("scopes")}
            >
              <Stack gap="sm" mt="xs">
                {SCOPES.map((scope) => (
                  <Checkbox
                    key={scope.value}
                    value={scope.value}
                    label={scope.label}
                    description={scope.description}
                  />
                ))}
              </Stack>
            </Checkbox.Group>
            <DateInput
              label="Expires"
              description="Optional. The key stops working at the end of this day."
              placeholder="Never"
              clearable
              minDate={new Date(Date.now() + 86_400_000)}
              valueFormat="YYYY-MM-DD"
              {...form.getInputProps("expires_at")}
            />
            {failure !== null && <LoadError error={failure} title="The key was not created" />}
            <Group justify="flex-end">
              <Button variant="default" onClick={close} disabled={create.isPending}>
                Cancel
              </Button>
              <Button ref={createButton} type="submit" loading={create.isPending}>
                Create key
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

function RevokeKeyModal({
  apiKey,
  onClose,
  onFocusLost,
}: {
  apiKey: ApiKey | null;
  onClose: () => void;
  onFocusLost: () => void;
}) {
  const revoke = useRevokeApiKey();
  return (
    <ConfirmDialog
      opened={apiKey !== null}
      title="Revoke this key?"
      keepLabel="Keep it"
      confirmLabel="Revoke key"
      pendingLabel="Revoking the key…"
      failureTitle="The key was not revoked"
      onClose={onClose}
      onConfirm={async () => {
        if (apiKey) await revoke.mutateAsync(apiKey.id);
      }}
      onFocusLost={onFocusLost}
    >
      <Text size="sm">
        Anything using <strong>{apiKey?.name || "this key"}</strong> stops working at once. This cannot be
        undone.
      </Text>
    </ConfirmDialog>
  );
}
