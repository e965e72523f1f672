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
  TextInput,
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
import { focusFirstRefused, useRefocusAfterBusy } from "../../ui/focus.ts";
import { useInFlightModal } from "../../ui/in-flight-modal.ts";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { EmptyState, LoadError, Loading } from "../../ui/states.tsx";
import { KeysTable, RevokeKeyDialog, SCOPES } from "./KeysTable.tsx";

/** The longest key name the API takes. */
const KEY_NAME_MAX = 200;

export function ApiKeysPanel() {
  const keys = useQuery(apiKeysQuery());
  const revoke = useRevokeApiKey();
  const create = useCreateApiKey();
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
          <KeysTable
            label="API keys"
            minWidth={340}
            keys={keys.data.keys}
            demoNote="The demo key made at first start, for trying the API. Give your CRM a key of its own, then revoke this one."
            onRevoke={setRevoking}
          />
        </>
      )}
      <CreateKeyModal
        opened={createOpened}
        onClose={createModal.close}
        create={create}
        title="Create API key"
        keepSecret="Store it where your CRM or developer keeps secrets."
      />
      <RevokeKeyDialog
        apiKey={revoking}
        user="Anything"
        revoke={revoke.mutateAsync}
        onClose={() => setRevoking(null)}
        onFocusLost={() => createRef.current?.focus()}
      />
    </Stack>
  );
}

/** What creates a key: the owner's own API or the operator's, each a mutation answering the key once. */
export interface KeyCreation {
  mutateAsync: (body: { name: string; scopes: Scope[]; expires_at?: string }) => Promise<{ key: string }>;
  isPending: boolean;
  reset: () => void;
}

/**
 * The form that creates a key, then shows it once with Copy key. While the key is being made
 * nothing closes the dialog (closed then, the key would be made and never seen).
 */
export function CreateKeyModal({
  opened,
  onClose,
  create,
  title,
  keepSecret,
}: {
  opened: boolean;
  onClose: () => void;
  create: KeyCreation;
  title: string;
  /** Where the key should go, said under "Copy it now". */
  keepSecret: string;
}) {
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
  const inFlight = useInFlightModal(create.isPending, { showingOnce: issued !== null });
  // A double-click (or Enter pressed twice) creates one, not two of which only the second is shown.
  const once = useSingleFlight((run: () => Promise<void>) => run());
  const close = () => {
    if (create.isPending || once.isRunning()) return;
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
      title={issued ? "Your new API key" : title}
      centered
      {...inFlight.modalProps}
    >
      {issued ? (
        <Stack>
          <Alert color="yellow" title="Copy it now">
            This is the only time the key is shown. {keepSecret}
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
                  names the scope each endpoint needs.
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
