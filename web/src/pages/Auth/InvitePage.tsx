import { Alert, Button, Divider, Stack, Text, TextInput } from "@mantine/core";
import { isNotEmpty, useForm } from "@mantine/form";
import { useQuery } from "@tanstack/react-query";
import { getRouteApi, useNavigate } from "@tanstack/react-router";
import { type Ref, useEffect, useRef, useState } from "react";
import { ApiError, errorMessage } from "../../api/errors.ts";
import { businessNameOf } from "../../api/organization.ts";
import {
  type Invitation,
  invitationQuery,
  useAcceptInvitation,
  useJoinInvitation,
  useSignOut,
} from "../../api/session.ts";
import { focusFirstInvalid, focusFirstRefused, focusWhenShown, useRefocusAfterBusy } from "../../ui/focus.ts";
import { ButtonLink } from "../../ui/links.tsx";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { NEW_PASSWORD_HINT, newPasswordRule } from "../../ui/password-rules.ts";
import { LoadError, Loading } from "../../ui/states.tsx";
import { AuthFrame } from "./AuthFrame.tsx";

const route = getRouteApi("/invite/$token");

const roleWords = (invitation: Invitation) => (invitation.role === "owner" ? "an owner" : "a member");

/**
 * An invitation's page. Nothing here says whether the invited email has an account: a new
 * invitee sets a name and password; someone who already has an account signs in (the ordinary
 * sign-in page and its limits), comes back, and joins. No password is ever checked here.
 */
export function InvitePage() {
  const { token } = route.useParams();
  const invitation = useQuery(invitationQuery(token));
  // Signed out here (the invitation is for another email): the page asks again, now as nobody, and
  // the invited email's form that it shows gives its first field the focus.
  const [signedOutHere, setSignedOutHere] = useState(false);

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
          <UsedOrExpiredInvitation />
        ) : (
          <LoadError error={invitation.error} retry={() => invitation.refetch()} />
        )}
      </AuthFrame>
    );
  }

  const data = invitation.data;
  const title = `Join ${businessNameOf({ name: data.organization_name, business_name: data.business_name })}`;
  const signedInAs = data.signed_in_as?.toLowerCase() ?? null;
  if (signedInAs === data.email.toLowerCase()) {
    return (
      <AuthFrame title={title} intro={`You were invited as ${roleWords(data)} (${data.email}).`}>
        <JoinAsSignedIn token={token} email={data.email} />
      </AuthFrame>
    );
  }
  if (signedInAs !== null) {
    return (
      <AuthFrame title={title} intro={`You were invited as ${roleWords(data)} (${data.email}).`}>
        <SignedInAsSomeoneElse
          email={data.email}
          signedInAs={data.signed_in_as!}
          onSignedOut={() => {
            setSignedOutHere(true);
            // Signing out dropped every cached answer, this one too, without asking again.
            void invitation.refetch();
          }}
        />
      </AuthFrame>
    );
  }
  return (
    <AuthFrame
      title={title}
      intro={`You were invited as ${roleWords(data)} (${data.email}). New to Porchlight? Choose your name and a password. Already have an account with this email? Sign in to join.`}
    >
      <NewAccountForm token={token} email={data.email} focusName={signedOutHere} />
    </AuthFrame>
  );
}

/** A link already used set up an account (often the reader's own): signing in is the way on. */
function UsedOrExpiredInvitation() {
  return (
    <Stack>
      <Text>
        This invitation has expired or was already used. If you set up your account with it, sign in.
        Otherwise ask whoever invited you to send a new one.
      </Text>
      <ButtonLink to="/sign-in" search={{ redirect: undefined }}>
        Sign in
      </ButtonLink>
    </Stack>
  );
}

function SignInToJoin({ token, ref }: { token: string; ref?: Ref<HTMLAnchorElement> }) {
  return (
    <ButtonLink ref={ref} to="/sign-in" search={{ redirect: `/invite/${token}` }} variant="default">
      Sign in to join
    </ButtonLink>
  );
}

function JoinAsSignedIn({ token, email }: { token: string; email: string }) {
  const join = useJoinInvitation(token);
  const joinButton = useRefocusAfterBusy(join.isPending);
  const navigate = useNavigate();
  return (
    <Stack>
      <Text>You are signed in as {email}.</Text>
      {join.isError && (
        <Alert color="red" role="alert" title="Not joined">
          {errorMessage(join.error)}
        </Alert>
      )}
      <Button
        ref={joinButton}
        loading={join.isPending}
        onClick={async () => {
          try {
            await join.mutateAsync();
          } catch {
            return;
          }
          await navigate({ to: "/" });
        }}
      >
        Join
      </Button>
    </Stack>
  );
}

function SignedInAsSomeoneElse({
  email,
  signedInAs,
  onSignedOut,
}: {
  email: string;
  signedInAs: string;
  onSignedOut: () => void;
}) {
  const signOut = useSignOut();
  const signOutButton = useRefocusAfterBusy(signOut.isPending);
  return (
    <Stack>
      <Text>
        You are signed in as {signedInAs}. This invitation is for {email}: sign out first, then sign in with
        that email or set up its account.
      </Text>
      <Button
        ref={signOutButton}
        variant="default"
        loading={signOut.isPending}
        onClick={() => signOut.mutate(undefined, { onSuccess: onSignedOut })}
      >
        Sign out
      </Button>
    </Stack>
  );
}

function NewAccountForm({ token, email, focusName }: { token: string; email: string; focusName: boolean }) {
  const accept = useAcceptInvitation(token);
  const nameField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (focusName) nameField.current?.focus();
  }, [focusName]);
  const acceptButton = useRefocusAfterBusy(accept.isPending);
  const formRef = useRef<HTMLFormElement>(null);
  // The form gives way to "Sign in to join" when the email has an account: the focus goes there.
  const signInToJoin = useRef<HTMLAnchorElement>(null);
  const navigate = useNavigate();
  const [hasAccount, setHasAccount] = useState(false);
  const form = useForm({
    initialValues: { name: "", password: "" },
    validate: {
      name: isNotEmpty("Enter your name"),
      password: newPasswordRule,
    },
  });

  if (hasAccount)
    return (
      <Stack>
        <Alert color="blue" title="You already have an account">
          {email} already has a Porchlight account. Sign in with it, and you come back here to join.
        </Alert>
        <SignInToJoin ref={signInToJoin} token={token} />
      </Stack>
    );

  const fieldErrors = accept.error instanceof ApiError ? accept.error.fieldErrors() : {};
  return (
    <Stack>
      <form
        ref={formRef}
        onSubmit={form.onSubmit(async (values) => {
          try {
            await accept.mutateAsync(values);
          } catch (error) {
            if (error instanceof ApiError && error.code === "sign_in_to_join") {
              setHasAccount(true);
              focusWhenShown(() => signInToJoin.current);
            } else if (error instanceof ApiError) {
              form.setErrors(error.fieldErrors());
              focusFirstInvalid(formRef.current);
            }
            return;
          }
          await navigate({ to: "/" });
        }, focusFirstRefused)}
        noValidate
      >
        <Stack>
          {accept.isError && Object.keys(fieldErrors).length === 0 && (
            <Alert color="red" role="alert" title="Not signed in">
              {errorMessage(accept.error)}
            </Alert>
          )}
          {/* Read-only and filled, so it does not pass for a field to edit; kept an input for password managers. */}
          <TextInput
            label="Email"
            description="The address the invitation was sent to; you sign in with it"
            value={email}
            readOnly
            variant="filled"
            autoComplete="username"
          />
          <TextInput
            ref={nameField}
            label="Your name"
            autoComplete="name"
            required
            {...form.getInputProps("name")}
          />
          <PasswordField
            label="Password"
            description={NEW_PASSWORD_HINT}
            autoComplete="new-password"
            required
            {...form.getInputProps("password")}
          />
          <Button ref={acceptButton} type="submit" loading={accept.isPending}>
            Set password and sign in
          </Button>
        </Stack>
      </form>
      <Divider label="Already have an account?" labelPosition="center" />
      <SignInToJoin token={token} />
    </Stack>
  );
}
