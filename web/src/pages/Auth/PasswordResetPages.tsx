import { Alert, Button, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { hasLength, isEmail, matchesField, useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { getRouteApi, useNavigate } from "@tanstack/react-router";
import { useRequestPasswordReset, useResetPassword } from "../../api/session.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { AuthFrame } from "./AuthFrame.tsx";
import { MIN_PASSWORD_LENGTH } from "./InvitePage.tsx";

export function ForgotPasswordPage() {
  const request = useRequestPasswordReset();
  const form = useForm({
    initialValues: { email: "" },
    validate: { email: isEmail("Enter your email address") },
  });

  return (
    <AuthFrame title="Reset your password" intro="We email you a link that lets you choose a new password.">
      {request.isSuccess ? (
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
          )}
        >
          <Stack>
            <TextInput
              label="Email"
              type="email"
              autoComplete="email"
              required
              {...form.getInputProps("email")}
            />
            <Button type="submit" loading={request.isPending}>
              Send reset link
            </Button>
            <AnchorLink to="/sign-in" search={{ redirect: undefined }} size="sm">
              Back to sign in
            </AnchorLink>
          </Stack>
        </form>
      )}
    </AuthFrame>
  );
}

const resetRoute = getRouteApi("/reset-password");

export function ResetPasswordPage() {
  const { token } = resetRoute.useSearch();
  const reset = useResetPassword();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: { password: "", confirm: "" },
    validate: {
      password: hasLength({ min: MIN_PASSWORD_LENGTH }, `Use at least ${MIN_PASSWORD_LENGTH} characters`),
      confirm: matchesField("password", "The two passwords differ"),
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
  return (
    <AuthFrame title="Choose a new password">
      <form
        onSubmit={form.onSubmit(async ({ password }) => {
          try {
            await reset.mutateAsync({ token, newPassword: password });
          } catch {
            return;
          }
          await navigate({ to: "/sign-in", search: {} });
          notifications.show({
            color: "green",
            title: "Password changed",
            message: "Sign in with your new password. You were signed out everywhere else.",
          });
        })}
      >
        <Stack>
          <PasswordInput
            label="New password"
            autoComplete="new-password"
            required
            {...form.getInputProps("password")}
          />
          <PasswordInput
            label="Repeat the new password"
            autoComplete="new-password"
            required
            {...form.getInputProps("confirm")}
          />
          <Button type="submit" loading={reset.isPending}>
            Save new password
          </Button>
        </Stack>
      </form>
    </AuthFrame>
  );
}
