import {
  Alert,
  Box,
  Button,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { ApiError, isInputRefused } from "../../api/errors.ts";
import {
  type Role,
  teamQuery,
  useCancelInvitation,
  useChangeRole,
  useInviteTeammate,
  useRemoveTeammate,
} from "../../api/organization.ts";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";
import { emailRule } from "../../ui/email-rule.ts";
import { ERROR_ABOVE_INPUT } from "../../ui/field-row.ts";
import { focusFirstInvalid, focusFirstRefused, useRefocusAfterBusy } from "../../ui/focus.ts";
import { formatDay } from "../../ui/format.ts";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { LoadError, Loading } from "../../ui/states.tsx";

const ROLES = [
  { value: "owner", label: "Owner: everything, including keys, team and profile" },
  { value: "member", label: "Member: automations and mail" },
];

export function TeamPanel({ currentUserId }: { currentUserId: string }) {
  const team = useQuery(teamQuery());
  const changeRole = useChangeRole();
  const cancelInvitation = useCancelInvitation();
  const [removing, setRemoving] = useState<{ id: string; name: string } | null>(null);
  // Where the focus goes once a removed member's row (and its Remove button) is gone.
  const membersHeading = useRef<HTMLHeadingElement>(null);

  if (team.isPending) return <Loading label="Loading your team" />;
  if (team.isError) {
    if (team.error instanceof ApiError && team.error.status === 403) {
      return (
        <Alert title="Only owners manage the team">Ask an owner to invite someone or change a role.</Alert>
      );
    }
    return <LoadError error={team.error} retry={() => team.refetch()} />;
  }

  return (
    <Stack gap="xl">
      <InviteForm />
      <section aria-labelledby="members-heading">
        <Title order={2} size="h4" id="members-heading" mb="sm" ref={membersHeading} tabIndex={-1}>
          Members
        </Title>
        {/* The email sits under the name, so name, role and Remove fit a phone. */}
        <ScrollTable label="Members table" minWidth={340}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name and email</Table.Th>
                <Table.Th>Role</Table.Th>
                <Table.Th data-row-actions>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {team.data.members.map((member) => (
                <Table.Tr key={member.id}>
                  <Table.Td>
                    {member.name}
                    {/* Why this row's role is fixed and has no Remove: it is the person signed in. */}
                    {member.user_id === currentUserId && (
                      <Text span inherit c="dimmed">
                        {" "}
                        (you)
                      </Text>
                    )}
                    <Text size="sm" c="dimmed" style={{ overflowWrap: "anywhere" }}>
                      {member.email}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Select
                      aria-label={`Role of ${member.name || member.email}`}
                      data={[
                        { value: "owner", label: "Owner" },
                        { value: "member", label: "Member" },
                      ]}
                      value={member.role}
                      allowDeselect={false}
                      disabled={member.user_id === currentUserId}
                      onChange={(role) => role && changeRole.mutate({ id: member.id, role: role as Role })}
                      w={112}
                    />
                  </Table.Td>
                  <Table.Td data-row-actions>
                    {member.user_id !== currentUserId && (
                      <Button
                        size="xs"
                        variant="outline"
                        color="red.9"
                        aria-label={`Remove ${member.name || member.email}`}
                        onClick={() => setRemoving({ id: member.id, name: member.name || member.email })}
                      >
                        Remove
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      </section>
      {team.data.invitations.length > 0 && (
        <section aria-labelledby="invitations-heading">
          <Title order={2} size="h4" id="invitations-heading" mb="sm">
            Pending invitations
          </Title>
          <Stack gap="xs">
            {team.data.invitations.map((invitation) => (
              <Group key={invitation.id} gap="sm" wrap="wrap">
                <Text size="sm">
                  {invitation.email} as {invitation.role}, until {formatDay(invitation.expires_at)}
                  {invitation.invited_by ? `, invited by ${invitation.invited_by}` : ""}
                </Text>
                <Button
                  size="compact-xs"
                  variant="outline"
                  color="red.9"
                  loading={cancelInvitation.isPending && cancelInvitation.variables === invitation.id}
                  onClick={() => cancelInvitation.mutate(invitation.id)}
                >
                  Cancel the invitation for {invitation.email}
                </Button>
              </Group>
            ))}
          </Stack>
        </section>
      )}
      <RemoveModal
        member={removing}
        onClose={() => setRemoving(null)}
        onFocusLost={() => membersHeading.current?.focus()}
      />
    </Stack>
  );
}

/**
 * The server's refusal of an invitation on the email field, in words: a refusal naming no field
 * (already a member) is the address's, and said there rather than only in a passing notice.
 */
function inviteRefusal(error: ApiError): Record<string, string> {
  const fields = error.fieldErrors();
  if (Object.keys(fields).length > 0 || !isInputRefused(error)) return fields;
  if (error.code === "already_member")
    return { email: "This person is already on your team. Change their role under Members below." };
  return { email: error.message };
}

function InviteForm() {
  const invite = useInviteTeammate();
  const sendButton = useRefocusAfterBusy(invite.isPending);
  const [sent, setSent] = useState<{ email: string; expires_at: string } | null>(null);
  // A failure no field can show (no connection, the server's own problem, too many invitations).
  const [failure, setFailure] = useState<unknown>(null);
  const form = useForm<{ email: string; role: Role }>({
    initialValues: { email: "", role: "member" },
    validate: { email: emailRule("Enter their email address") },
  });
  return (
    <section aria-labelledby="invite-heading">
      <Title order={2} size="h4" id="invite-heading" mb="sm">
        Invite someone
      </Title>
      <form
        onSubmit={form.onSubmit(async (values, event) => {
          const formElement = event?.currentTarget ?? null;
          // The box about an earlier invitation goes: what shows next is this one's outcome alone.
          setSent(null);
          setFailure(null);
          try {
            const answer = await invite.mutateAsync(values);
            setSent({ email: values.email, expires_at: answer.expires_at });
          } catch (error) {
            const onFields = error instanceof ApiError ? inviteRefusal(error) : {};
            if (Object.keys(onFields).length > 0) {
              form.setErrors(onFields);
              focusFirstInvalid(formElement);
            } else setFailure(error);
            return;
          }
          // The green box below says it was sent, and until when the link works: no toast repeats it.
          form.reset();
        }, focusFirstRefused)}
        noValidate
      >
        {/* Lined up at the foot: a refused email is said above its input, leaving Send invitation beside it. */}
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label="Email"
            type="email"
            required
            inputWrapperOrder={ERROR_ABOVE_INPUT}
            style={{ flex: "2 1 220px" }}
            {...form.getInputProps("email")}
          />
          <Select
            label="Role"
            data={ROLES}
            allowDeselect={false}
            style={{ flex: "1 1 220px" }}
            {...form.getInputProps("role")}
          />
          <Button ref={sendButton} type="submit" loading={invite.isPending}>
            Send invitation
          </Button>
        </Group>
      </form>
      {failure !== null && (
        <Box mt="md">
          <LoadError error={failure} title="The invitation was not sent" />
        </Box>
      )}
      {sent && (
        <Alert color="green" title={`Invitation for ${sent.email}`} mt="md">
          <Text size="sm">
            The email with their link is on its way; the link works until {formatDay(sent.expires_at)}. Only
            they get the link: if the email does not arrive, send the invitation again (the new link replaces
            the old one).
          </Text>
        </Alert>
      )}
    </section>
  );
}

function RemoveModal({
  member,
  onClose,
  onFocusLost,
}: {
  member: { id: string; name: string } | null;
  onClose: () => void;
  onFocusLost: () => void;
}) {
  const remove = useRemoveTeammate();
  return (
    <ConfirmDialog
      opened={member !== null}
      title="Remove from the team?"
      keepLabel="Cancel"
      confirmLabel="Remove"
      pendingLabel={`Removing ${member?.name ?? "them"}…`}
      failureTitle="They were not removed"
      onClose={onClose}
      onConfirm={async () => {
        if (member) await remove.mutateAsync(member.id);
      }}
      onFocusLost={onFocusLost}
    >
      <Text size="sm">
        {/* A member made from an owner may still have invitations out: "any" fits every removal. */}
        {member?.name} loses access to this organization at once, and any invitations they sent are cancelled.
      </Text>
      {/* Keys and webhooks belong to the organization, not to whoever made them: they keep working. */}
      <Text size="sm">
        API keys and webhooks stay as they are: if {member?.name} could have copied a key, revoke it in
        Developers.
      </Text>
    </ConfirmDialog>
  );
}
