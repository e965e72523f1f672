import { Alert, Button, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useQuery } from "@tanstack/react-query";
import { getRouteApi, useNavigate } from "@tanstack/react-router";
import { useRef } from "react";
import { ApiError } from "../../api/errors.ts";
import { passwordResetQuery, useRequestPasswordReset, useResetPassword } from "../../api/session.ts";
import { emailRule } from "../../ui/email-rule.ts";
import { focusFirstInvalid, focusFirstRefused, useRefocusAfterBusy } from "../../ui/focus.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { NEW_PASSWORD_HINT, newPasswordRule, repeatsPasswordIn } from "../../ui/password-rules.ts";
import { LoadError, Loading } from "../../ui/states.tsx";
import { AuthFrame } from "./AuthFrame.tsx";

/** Asks for a reset link by email; once sent, says to check the inbox. */
function RequestResetForm({ submitLabel = "Send reset link" }: { submitLabel?: string }) {
  const request = useRequestPasswordReset();
  const requestButton = useRefocusAfterBusy(request.isPending);
  const form = useForm({
    initialValues: { email: "" },
    validate: { email: emailRule("Enter your email address") },
  });

  return request.isSuccess ? (
    <Stack>
      <Alert color="green" title="Check your email">
        If {form.values.email} has an account, a reset link is on its way. It works for one hour.
      </Alert>
      <AnchorLink to="/sign-in" search={{ redirect: undefined }}>
        Back to sign in
      </AnchorLink>
    </Stack>
  ) : (
    <form
      onSubmit={form.onSubmit(
        async ({ email }) => void (await request.mutateAsync(email).catch(() => undefined)),
        focusFirstRefused,
      )}
      noValidate
    >
      <Stack>
        <TextInput
          label="Email"
          type="email"
          autoComplete="email"
          required
          {...form.getInputProps("email")}
        />
        <Button ref={requestButton} type="submit" loading={request.isPending}>
          {submitLabel}
        </Button>
        <AnchorLink to="/sign-in" search={{ redirect: undefined }} size="sm">
          Back to sign in
        </AnchorLink>
      </Stack>
    </form>
  );
}

export function ForgotPasswordPage() {
  return (
    <AuthFrame title="Reset your password" intro="We email you a link that lets you choose a new password.">
      <RequestResetForm />
    </AuthFrame>
  );
}

const resetRoute = getRouteApi("/reset-password");

export function ResetPasswordPage() {
  const { token } = resetRoute.useSearch();
  // Checked as the page opens: a used or expired link says so now, not after a new password is typed.
  const check = useQuery({ ...passwordResetQuery(token ?? ""), enabled: Boolean(token) });
  const reset = useResetPassword();
  const resetButton = useRefocusAfterBusy(reset.isPending);
  const navigate = useNavigate();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useForm({
    initialValues: { password: "", confirm: "" },
    validate: {
      password: newPasswordRule,
      confirm: repeatsPasswordIn("password"),
    },
  });

  if (!token) {
    return (
      <AuthFrame title="Choose a new password">
        <Text>
          This link is incomplete. Open the link from the email again, or{" "}
          <AnchorLink to="/forgot-password">ask for a new one</AnchorLink>.
        </Text>
      </AuthFrame>
    );
  }
  if (check.isPending)
    return (
      <AuthFrame title="Choose a new password">
        <Loading label="Checking your link" />
      </AuthFrame>
    );
  if (check.isError)
    return (
      <AuthFrame title="Choose a new password">
        <LoadError error={check.error} retry={() => check.refetch()} />
      </AuthFrame>
    );
  if (!check.data.valid)
    return (
      <AuthFrame
        title="This link has expired"
        intro="A reset link works for one hour and only once. Enter your email and we send you a new one."
      >
        <RequestResetForm submitLabel="Send a new link" />
      </AuthFrame>
    );
  return (
    <AuthFrame title="Choose a new password">
      <form
        ref={formRef}
        onSubmit={form.onSubmit(async ({ password }) => {
          try {
            await reset.mutateAsync({ token, newPassword: password });
          } catch (error) {
            // A password guessed first (password-choice.ts) is said beside its field.
            const refused = error instanceof ApiError ? error.fieldErrors().newPassword : undefined;
            if (refused) {
              form.setFieldError("password", refused);
              focusFirstInvalid(formRef.current);
              return;
            }
            // Expired while the form was open: the check says so and the page offers a new link.
            await check.refetch();
            return;
          }
          await navigate({ to: "/sign-in", search: {} });
          notifications.show({
            color: "green",
            title: "Password changed",
            message: "Sign in with your new password. You were signed out everywhere else.",
          });
        }, focusFirstRefused)}
        noValidate
      >
        <Stack>
          <PasswordField
            label="New password"
            description={NEW_PASSWORD_HINT}
            autoComplete="new-password"
            required
            {...form.getInputProps("password")}
          />
          <PasswordField
            label="Repeat the new password"
            autoComplete="new-password"
            required
            {...form.getInputProps("confirm")}
          />
          <Button ref={resetButton} type="submit" loading={reset.isPending}>
            Save new password
          </Button>
        </Stack>
      </form>
    </AuthFrame>
  );
}
