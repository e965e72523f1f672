import {
  Alert,
  Button,
  Checkbox,
  Code,
  CopyButton,
  Group,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { isInputRefused } from "../../api/errors.ts";
import {
  type IssuedApiKey,
  type OperatorApiKey,
  type OperatorOrg,
  orgApiKeysQuery,
  useIssueOrgApiKey,
  useRevokeOrgApiKey,
} from "../../api/operator.ts";
import { KeysTable, RevokeKeyDialog, SCOPES } from "../../modules/developers/KeysTable.tsx";
import { focusFirstRefused, useRefocusAfterBusy } from "../../ui/focus.ts";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { LoadError, Loading } from "../../ui/states.tsx";

/**
 * One organization's API keys for the operator: issue one (shown once), see each key's access and
 * use, revoke one that leaked. The same words as the owner's own Developers screen. It opens with
 * the focus on its heading, under the organizations table.
 */
export function OrgKeysPanel({ org, onClose }: { org: OperatorOrg; onClose: () => void }) {
  const keys = useQuery(orgApiKeysQuery(org.org_id));
  const revoke = useRevokeOrgApiKey(org.org_id);
  const [revoking, setRevoking] = useState<OperatorApiKey | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // Keyed by the organization, the panel mounts anew for each: its heading takes the focus once.
  useEffect(() => {
    heading.current?.focus();
  }, []);
  const headingId = `org-keys-${org.org_id}`;

  return (
    <Paper
      withBorder
      p={{ base: "xs", sm: "md" }}
      radius="md"
      component="section"
      aria-labelledby={headingId}
      mt="md"
    >
      <Group justify="space-between" mb="sm" wrap="nowrap" align="flex-start">
        <Title order={3} size="h4" id={headingId} ref={heading} tabIndex={-1}>
          API keys of {org.org_name}
        </Title>
        <Button size="xs" variant="default" onClick={onClose} style={{ flexShrink: 0 }}>
          Close
        </Button>
      </Group>
      <Stack>
        <IssueKeyForm orgId={org.org_id} />
        {keys.isPending ? (
          <Loading label="Loading API keys" />
        ) : keys.isError ? (
          <LoadError error={keys.error} retry={() => keys.refetch()} />
        ) : keys.data.length === 0 ? (
          <Text size="sm">This organization has no live API key.</Text>
        ) : (
          // Narrower than the owner's own list: inside this panel a phone has ~330 px for it.
          <KeysTable
            label={`API keys of ${org.org_name}`}
            minWidth={300}
            keys={keys.data}
            demoNote="The demo key made at first start."
            onRevoke={setRevoking}
          />
        )}
      </Stack>
      <RevokeKeyDialog
        apiKey={revoking}
        user="The contractor's CRM or anything else"
        revoke={revoke.mutateAsync}
        onClose={() => setRevoking(null)}
        onFocusLost={() => heading.current?.focus()}
      />
    </Paper>
  );
}

function IssueKeyForm({ orgId }: { orgId: string }) {
  const issue = useIssueOrgApiKey(orgId);
  const issueButton = useRefocusAfterBusy(issue.isPending);
  const [issued, setIssued] = useState<IssuedApiKey | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const form = useForm<{ name: string; scopes: string[] }>({
    initialValues: { name: "", scopes: SCOPES.map((scope) => scope.value) },
    validate: {
      name: (name) => (name.trim() === "" ? "Name the key after where it is used, e.g. CRM" : null),
      scopes: (scopes) => (scopes.length === 0 ? "Pick at least one thing the key may do" : null),
    },
  });
  // A double-click issues one key, not two of which only the second is shown.
  const once = useSingleFlight((run: () => Promise<void>) => run());
  const copyButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (issued) copyButton.current?.focus();
  }, [issued]);

  if (issued) {
    return (
      <Stack gap="xs">
        <Alert color="yellow" title="Copy it now">
          This is the only time the key is shown. Pass it to the contractor over a channel you trust.
        </Alert>
        <Code block aria-label="New API key" style={{ wordBreak: "break-all", whiteSpace: "pre-wrap" }}>
          {issued.key}
        </Code>
        <Group>
          <CopyButton value={issued.key}>
            {({ copied, copy }) => (
              <Button ref={copyButton} onClick={copy}>
                {copied ? "Copied" : "Copy key"}
              </Button>
            )}
          </CopyButton>
          <Button variant="default" onClick={() => setIssued(null)}>
            Done
          </Button>
        </Group>
      </Stack>
    );
  }
  return (
    <form
      onSubmit={form.onSubmit(
        (values) =>
          void once(async () => {
            setFailure(null);
            try {
              setIssued(await issue.mutateAsync({ name: values.name.trim(), scopes: values.scopes }));
              form.reset();
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
      <Stack gap="sm">
        <TextInput
          label="New key's name"
          placeholder="e.g. CRM"
          maxLength={200}
          {...form.getInputProps("name")}
        />
        <Checkbox.Group label="What the key lets the contractor's CRM do" {...form.getInputProps("scopes")}>
          <Group gap="md" mt="xs">
            {SCOPES.map((scope) => (
              <Checkbox key={scope.value} value={scope.value} label={scope.label} />
            ))}
          </Group>
        </Checkbox.Group>
        {failure !== null && <LoadError error={failure} title="The key was not issued" />}
        <Group>
          <Button ref={issueButton} type="submit" loading={issue.isPending}>
            Issue key
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
