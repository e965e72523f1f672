import { Alert, Button, Stack, TextInput } from "@mantine/core";
import { isNotEmpty, useForm } from "@mantine/form";
import { getRouteApi, useNavigate } from "@tanstack/react-router";
import { errorMessage } from "../../api/errors.ts";
import { useSignIn } from "../../api/session.ts";
import { emailRule } from "../../ui/email-rule.ts";
import { focusFirstRefused, useRefocusAfterBusy } from "../../ui/focus.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { AuthFrame } from "./AuthFrame.tsx";

const route = getRouteApi("/sign-in");

/** Why the app sent someone to sign in, said above the form. */
const REASON_WORDS = {
  session_ended: "Your session ended; sign in again to save your changes.",
} as const;
export type SignInReason = keyof typeof REASON_WORDS;
export const SIGN_IN_REASONS = Object.keys(REASON_WORDS) as SignInReason[];

/** Where to go after signing in: only a path inside the app (never another site). */
export function safeRedirect(target: string | undefined): string {
  if (!target) return "/";
  const path = target.startsWith("/app/") ? target.slice(4) : target;
  return path.startsWith("/") && !path.startsWith("//") ? path : "/";
}

export function SignInPage() {
  const { redirect, reason } = route.useSearch();
  const navigate = useNavigate();
  const signIn = useSignIn();
  const signInButton = useRefocusAfterBusy(signIn.isPending);
  const form = useForm({
    initialValues: { email: "", password: "" },
    validate: { email: emailRule("Enter your email address"), password: isNotEmpty("Enter your password") },
  });

  return (
    <AuthFrame title="Sign in" intro="Sign in to manage your postcards, automations and team.">
      <form
        onSubmit={form.onSubmit(
          async (values) => {
            try {
              await signIn.mutateAsync(values);
            } catch {
              form.setFieldValue("password", "");
              return;
            }
            await navigate({ to: safeRedirect(redirect) });
          },
          (errors, values, event) => {
            // The fields' own refusals replace an earlier "Not signed in": two answers at once confuse.
            signIn.reset();
            focusFirstRefused(errors, values, event);
          },
        )}
        noValidate
      >
        <Stack>
          {reason && (
            <Alert color="blue" title="Signed out">
              {REASON_WORDS[reason]}
            </Alert>
          )}
          {/* Beside the form too, not only in a toast that closes by itself. */}
          {signIn.isError && (
            <Alert color="red" role="alert" title="Not signed in">
              {errorMessage(signIn.error)}
            </Alert>
          )}
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            required
            {...form.getInputProps("email")}
          />
          <PasswordField
            label="Password"
            autoComplete="current-password"
            required
            {...form.getInputProps("password")}
          />
          <Button ref={signInButton} type="submit" loading={signIn.isPending}>
            Sign in
          </Button>
          <AnchorLink to="/forgot-password" size="sm">
            Forgot your password?
          </AnchorLink>
        </Stack>
      </form>
    </AuthFrame>
  );
}
