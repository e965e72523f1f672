import {
  Alert,
  Button,
  Code,
  Container,
  CopyButton,
  Group,
  Modal,
  Paper,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from "@mantine/core";
import { isNotEmpty, useForm } from "@mantine/form";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, errorMessage } from "../../api/errors.ts";
import {
  checkOperatorToken,
  failedJobsQuery,
  killSwitchQuery,
  type OperatorInvitation,
  type OperatorOrg,
  onOperatorTokenRefused,
  operatorKeys,
  operatorOrgsQuery,
  operatorToken,
  useCreateOrg,
  useInviteOwner,
  useSetKillSwitch,
} from "../../api/operator.ts";
import { DocumentTitle } from "../../ui/document-title.tsx";
import { emailRule } from "../../ui/email-rule.ts";
import { focusFirstInvalid, focusFirstRefused, focusWhenShown, useRefocusAfterBusy } from "../../ui/focus.ts";
import { formatDateTime } from "../../ui/format.ts";
import { useInFlightModal } from "../../ui/in-flight-modal.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { EmptyState, LoadError, Loading } from "../../ui/states.tsx";
import { BackupsPanel } from "./BackupsPanel.tsx";
import { OrgKeysPanel } from "./OrgKeysPanel.tsx";
import { ReferenceAddressesPanel } from "./ReferenceAddressesPanel.tsx";

/** The platform operator's console: signed in with the operator token, not a user account. */
export function OperatorPage() {
  const [signedIn, setSignedIn] = useState(() => operatorToken.get() !== null);
  // Signed out because the server refused the kept token: the sign-in says so.
  const [refused, setRefused] = useState(false);
  const queryClient = useQueryClient();
  const signOut = useCallback(() => {
    operatorToken.clear();
    queryClient.removeQueries({ queryKey: operatorKeys.all });
    setSignedIn(false);
  }, [queryClient]);
  useEffect(
    () =>
      onOperatorTokenRefused(() => {
        setRefused(true);
        signOut();
      }),
    [signOut],
  );

  return (
    <Container size="lg" py="lg" component="main">
      <DocumentTitle screen="Operator console" />
      <Group justify="space-between" mb="lg">
        <Title order={1} size="h2">
          Operator console
        </Title>
        {signedIn && (
          <Button variant="default" size="xs" onClick={signOut}>
            Sign out
          </Button>
        )}
      </Group>
      {signedIn ? (
        <Console />
      ) : (
        <TokenSignIn
          refused={refused}
          onSignedIn={() => {
            setRefused(false);
            setSignedIn(true);
          }}
        />
      )}
    </Container>
  );
}

function TokenSignIn({ refused, onSignedIn }: { refused: boolean; onSignedIn: () => void }) {
  const [checking, setChecking] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const form = useForm({
    initialValues: { token: "" },
    validate: { token: isNotEmpty("Enter the operator token") },
  });
  return (
    <Paper withBorder p="lg" maw={460}>
      <form
        ref={formRef}
        onSubmit={form.onSubmit(async ({ token }) => {
          setChecking(true);
          try {
            await checkOperatorToken(token.trim());
            operatorToken.set(token.trim());
            onSignedIn();
          } catch (error) {
            form.setErrors({
              token:
                error instanceof ApiError && error.status === 401
                  ? "This token is not the operator token"
                  : errorMessage(error),
            });
            focusFirstInvalid(formRef.current);
          } finally {
            setChecking(false);
          }
        }, focusFirstRefused)}
        noValidate
      >
        <Stack>
          {refused && (
            <Alert color="red" title="Signed out">
              The service refused the operator token this tab kept (it was changed on the server, or is not
              the operator token). Sign in with the current one.
            </Alert>
          )}
          <Text size="sm">
            The operator token was printed on the service's first start and is stored in the data directory's
            admin-token file. It is kept in this tab only.
          </Text>
          <PasswordField
            label="Operator token"
            autoComplete="off"
            required
            {...form.getInputProps("token")}
          />
          <Button type="submit" loading={checking}>
            Sign in
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}

function Console() {
  return (
    <Stack gap="xl">
      <KillSwitch />
      <Organizations />
      <FailedJobs />
      <ReferenceAddressesPanel />
      <BackupsPanel />
    </Stack>
  );
}

function KillSwitch() {
  const killSwitch = useQuery(killSwitchQuery());
  const setPaused = useSetKillSwitch();
  return (
    <section aria-labelledby="kill-switch-heading">
      <Title order={2} size="h3" id="kill-switch-heading" mb="sm">
        Kill switch
      </Title>
      {killSwitch.isPending ? (
        <Loading />
      ) : killSwitch.isError ? (
        <LoadError error={killSwitch.error} retry={() => killSwitch.refetch()} />
      ) : (
        <Stack gap="xs">
          <Switch
            label="Pause all automations"
            description="While paused, no automation mails anything, for every organization: events and imports are refused with 503 and Retry-After (CRMs retry later), and cards already queued wait until you resume."
            checked={killSwitch.data.paused}
            disabled={setPaused.isPending}
            onChange={(event) => setPaused.mutate(event.currentTarget.checked)}
            color="red.9"
          />
          {killSwitch.data.paused && (
            <Alert color="red" title="Automations are paused">
              No postcard is queued until you switch this off.
            </Alert>
          )}
        </Stack>
      )}
    </section>
  );
}

function Organizations() {
  const orgs = useQuery(operatorOrgsQuery());
  const create = useCreateOrg();
  const createButton = useRefocusAfterBusy(create.isPending);
  const formRef = useRef<HTMLFormElement>(null);
  const [inviting, setInviting] = useState<OperatorOrg | null>(null);
  const [keysOf, setKeysOf] = useState<OperatorOrg | null>(null);
  // The row's button that opened the keys panel: it gets the focus back when the panel closes.
  const keysOpener = useRef<HTMLButtonElement | null>(null);
  const closeKeys = () => {
    setKeysOf(null);
    keysOpener.current?.focus();
  };
  const form = useForm({
    initialValues: { name: "" },
    validate: { name: isNotEmpty("Enter the organization's name") },
  });

  return (
    <section aria-labelledby="orgs-heading">
      <Title order={2} size="h3" id="orgs-heading" mb="sm">
        Organizations
      </Title>
      <form
        ref={formRef}
        onSubmit={form.onSubmit(async ({ name }) => {
          try {
            const created = await create.mutateAsync(name.trim());
            form.reset();
            setInviting(created);
          } catch (error) {
            if (error instanceof ApiError) {
              form.setErrors({ name: error.message });
              focusFirstInvalid(formRef.current);
            }
          }
        }, focusFirstRefused)}
        noValidate
      >
        <Group align="flex-end" mb="md">
          <TextInput
            label="New organization name"
            style={{ flex: "1 1 240px" }}
            {...form.getInputProps("name")}
          />
          <Button ref={createButton} type="submit" loading={create.isPending}>
            Create organization
          </Button>
        </Group>
      </form>
      {orgs.isPending ? (
        <Loading label="Loading organizations" />
      ) : orgs.isError ? (
        orgs.error instanceof ApiError && orgs.error.status === 404 ? (
          <Text size="sm">
            This service cannot list organizations yet; newly created ones can be invited above.
          </Text>
        ) : (
          <LoadError error={orgs.error} retry={() => orgs.refetch()} />
        )
      ) : orgs.data.length === 0 ? (
        <EmptyState order={3} title="No organizations">
          Create the first contractor's organization above, then invite its owner.
        </EmptyState>
      ) : (
        <ScrollTable label="Organizations table" minWidth={340}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name and id</Table.Th>
                <Table.Th data-row-actions>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {orgs.data.map((org) => (
                <Table.Tr key={org.org_id}>
                  <Table.Td>
                    <Text size="sm">{org.org_name}</Text>
                    {/* Under the name, so the table fits a phone; a uuid breaks anywhere if it must. */}
                    <Code fz="xs" style={{ wordBreak: "break-all" }}>
                      {org.org_id}
                    </Code>
                  </Table.Td>
                  <Table.Td data-row-actions>
                    <Group gap="xs" wrap="nowrap">
                      <Button
                        size="xs"
                        variant="default"
                        aria-label={`Invite owner of ${org.org_name}`}
                        onClick={() => setInviting(org)}
                      >
                        Invite owner
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        aria-label={`API keys of ${org.org_name}`}
                        aria-pressed={keysOf?.org_id === org.org_id}
                        onClick={(event) => {
                          keysOpener.current = event.currentTarget;
                          setKeysOf(org);
                        }}
                      >
                        API keys
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      {keysOf && <OrgKeysPanel key={keysOf.org_id} org={keysOf} onClose={closeKeys} />}
      <InviteOwnerModal org={inviting} onClose={() => setInviting(null)} />
    </section>
  );
}

function InviteOwnerModal({ org, onClose }: { org: OperatorOrg | null; onClose: () => void }) {
  const invite = useInviteOwner();
  const [sent, setSent] = useState<OperatorInvitation | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  // The form and its Send button give way to the link: the focus goes to Copy link, the next step.
  const copyButton = useRef<HTMLButtonElement>(null);
  const form = useForm({
    initialValues: { email: "" },
    validate: { email: emailRule("Enter the owner's email") },
  });
  // The invitation link is shown only once: closed while it is sent, the owner would not know it was.
  const inFlight = useInFlightModal(invite.isPending, { showingOnce: sent !== null });
  // A double-click (or Enter pressed twice) sends one invitation, not two emails.
  const once = useSingleFlight((run: () => Promise<void>) => run());
  const close = () => {
    if (invite.isPending || once.isRunning()) return;
    setSent(null);
    form.reset();
    onClose();
  };
  return (
    <Modal
      opened={org !== null}
      onClose={close}
      title={`Invite the owner of ${org?.org_name ?? ""}`}
      centered
      {...inFlight.modalProps}
    >
      {sent ? (
        <Stack>
          <Text size="sm">
            The invitation email is on its way. You can also pass on this link (valid until{" "}
            {formatDateTime(sent.expires_at)}):
          </Text>
          <Code block style={{ wordBreak: "break-all", whiteSpace: "pre-wrap" }}>
            {sent.invite_url}
          </Code>
          <Group>
            <CopyButton value={sent.invite_url}>
              {({ copied, copy }) => (
                <Button ref={copyButton} onClick={copy}>
                  {copied ? "Copied" : "Copy link"}
                </Button>
              )}
            </CopyButton>
            <Button variant="default" onClick={close}>
              Done
            </Button>
          </Group>
        </Stack>
      ) : (
        <form
          ref={formRef}
          onSubmit={form.onSubmit(
            ({ email }) =>
              void once(async () => {
                if (!org) return;
                try {
                  setSent(await invite.mutateAsync({ orgId: org.org_id, email: email.trim() }));
                  focusWhenShown(() => copyButton.current);
                } catch (error) {
                  if (error instanceof ApiError) {
                    form.setErrors({ email: error.message });
                    focusFirstInvalid(formRef.current);
                  }
                }
              }),
            focusFirstRefused,
          )}
          noValidate
        >
          <Stack ref={inFlight.ref}>
            <TextInput
              label="Owner's email"
              type="email"
              required
              data-autofocus
              {...form.getInputProps("email")}
            />
            <Button type="submit" loading={invite.isPending}>
              Send invitation
            </Button>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

function FailedJobs() {
  const jobs = useQuery(failedJobsQuery());
  return (
    <section aria-labelledby="jobs-heading">
      <Title order={2} size="h3" id="jobs-heading" mb="sm">
        Failed jobs
      </Title>
      {jobs.isPending ? (
        <Loading label="Loading failed jobs" />
      ) : jobs.isError ? (
        <LoadError error={jobs.error} retry={() => jobs.refetch()} />
      ) : jobs.data.length === 0 ? (
        <Text size="sm">
          No failed jobs. Jobs that run out of attempts show up here with their last error.
        </Text>
      ) : (
        <ScrollTable label="Failed jobs" minWidth={640}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Kind</Table.Th>
                <Table.Th>Organization</Table.Th>
                <Table.Th>Attempts</Table.Th>
                <Table.Th>Last error</Table.Th>
                <Table.Th>Failed at</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {jobs.data.map((job) => (
                <Table.Tr key={job.id}>
                  <Table.Td>{job.kind}</Table.Td>
                  <Table.Td>
                    <Code>{job.org_id ?? "—"}</Code>
                  </Table.Td>
                  <Table.Td>{job.attempts}</Table.Td>
                  <Table.Td style={{ wordBreak: "break-word" }}>{job.last_error ?? "—"}</Table.Td>
                  <Table.Td>{formatDateTime(job.updated_at)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
    </section>
  );
}
