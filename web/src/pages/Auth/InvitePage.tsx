import { Button, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { hasLength, isNotEmpty, useForm } from "@mantine/form";
import { useQuery } from "@tanstack/react-query";
import { getRouteApi, useNavigate } from "@tanstack/react-router";
import { ApiError } from "../../api/errors.ts";
import { businessNameOf } from "../../api/organization.ts";
import { invitationQuery, useAcceptInvitation } from "../../api/session.ts";
import { LoadError, Loading } from "../../ui/states.tsx";
import { AuthFrame } from "./AuthFrame.tsx";

const route = getRouteApi("/invite/$token");

export const MIN_PASSWORD_LENGTH = 10;

export function InvitePage() {
  const { token } = route.useParams();
  const invitation = useQuery(invitationQuery(token));
  const accept = useAcceptInvitation(token);
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { name: "", password: "" },
    validate: {
      name: isNotEmpty("Enter your name"),
      password: hasLength({ min: MIN_PASSWORD_LENGTH }, `Use at least ${MIN_PASSWORD_LENGTH} characters`),
    },
  });

  if (invitation.isPending)
    return (
      <AuthFrame title="Join your team">
        <Loading label="Opening your invitation" />
      </AuthFrame>
    );
  if (invitation.isError) {
    const gone = invitation.error instanceof ApiError && [404, 410].includes(invitation.error.status);
    return (
      <AuthFrame title="Join your team">
        {gone ? (
          <Text>
            This invitation has expired or was already used. Ask whoever invited you to send a new one.
          </Text>
        ) : (
          <LoadError error={invitation.error} retry={() => invitation.refetch()} />
        )}
      </AuthFrame>
    );
  }

  return (
    <AuthFrame
      title={`Join ${businessNameOf({ name: invitation.data.organization_name, business_name: invitation.data.business_name })}`}
      intro={`You were invited as ${invitation.data.role === "owner" ? "an owner" : "a member"} (${invitation.data.email}). ${
        invitation.data.account_exists
          ? "You already have an account: enter its password to join."
          : "Choose your name and a password."
      }`}
    >
      <form
        onSubmit={form.onSubmit(async (values) => {
          try {
            await accept.mutateAsync(values);
          } catch (error) {
            if (error instanceof ApiError) form.setErrors(error.fieldErrors());
            return;
          }
          await navigate({ to: "/" });
        })}
      >
        <Stack>
          <TextInput label="Email" value={invitation.data.email} readOnly />
          <TextInput label="Your name" autoComplete="name" required {...form.getInputProps("name")} />
          <PasswordInput
            label="Password"
            description={
              invitation.data.account_exists
                ? "The password of your account"
                : `At least ${MIN_PASSWORD_LENGTH} characters`
            }
            autoComplete="new-password"
            required
            {...form.getInputProps("password")}
          />
          <Button type="submit" loading={accept.isPending}>
            Set password and sign in
          </Button>
        </Stack>
      </form>
    </AuthFrame>
  );
}
