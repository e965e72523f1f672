import { Button, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import {
  type OperatorApiKey,
  type OperatorOrg,
  orgApiKeysQuery,
  useIssueOrgApiKey,
  useRevokeOrgApiKey,
} from "../../api/operator.ts";
import { CreateKeyModal } from "../../modules/developers/ApiKeysPanel.tsx";
import { KeysTable, RevokeKeyDialog } from "../../modules/developers/KeysTable.tsx";
import { LoadError, Loading } from "../../ui/states.tsx";

/**
 * One organization's API keys for the operator: issue one (shown once), see each key's access and
 * use, revoke one that leaked. The same words as the owner's own Developers screen. It opens with
 * the focus on its heading, under the organizations table.
 */
export function OrgKeysPanel({ org, onClose }: { org: OperatorOrg; onClose: () => void }) {
  const keys = useQuery(orgApiKeysQuery(org.org_id));
  const revoke = useRevokeOrgApiKey(org.org_id);
  const issue = useIssueOrgApiKey(org.org_id);
  const [issueOpened, issueModal] = useDisclosure(false);
  // Where the focus goes once a revoked key's row (and its Revoke button) is gone.
  const issueButton = useRef<HTMLButtonElement>(null);
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
        <Group>
          <Button ref={issueButton} onClick={issueModal.open}>
            Issue key
          </Button>
        </Group>
        {keys.isPending ? (
          <Loading label="Loading API keys" />
        ) : keys.isError ? (
          <LoadError error={keys.error} retry={() => keys.refetch()} />
        ) : keys.data.length === 0 ? (
          <Text size="sm">This organization has no live API key.</Text>
        ) : (
          // Narrower than the owner's own list: inside this panel a phone has ~330 px for it.
          <KeysTable
            label={`Live keys of ${org.org_name}`}
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
        onFocusLost={() => issueButton.current?.focus()}
      />
      <CreateKeyModal
        opened={issueOpened}
        onClose={issueModal.close}
        create={issue}
        title={`Issue an API key for ${org.org_name}`}
        keepSecret="Pass it to the contractor over a channel you trust."
      />
    </Paper>
  );
}
