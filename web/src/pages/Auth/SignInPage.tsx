import { Alert, Button, PasswordInput, Stack, TextInput } from "@mantine/core";
import { isEmail, isNotEmpty, useForm } from "@mantine/form";
import { getRouteApi, useNavigate } from "@tanstack/react-router";
import { errorMessage } from "../../api/errors.ts";
import { useSignIn } from "../../api/session.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { AuthFrame } from "./AuthFrame.tsx";

const route = getRouteApi("/sign-in");

/** Where to go after signing in: only a path inside the app (never another site). */
export function safeRedirect(target: string | undefined): string {
  if (!target) return "/";
  const path = target.startsWith("/app/") ? target.slice(4) : target;
  return path.startsWith("/") && !path.startsWith("//") ? path : "/";
}

export function SignInPage() {
  const { redirect } = route.useSearch();
  const navigate = useNavigate();
  const signIn = useSignIn();
  const form = useForm({
    initialValues: { email: "", password: "" },
    validate: { email: isEmail("Enter your email address"), password: isNotEmpty("Enter your password") },
  });

  return (
    <AuthFrame title="Sign in" intro="Sign in to manage your postcards, automations and team.">
      <form
        onSubmit={form.onSubmit(async (values) => {
          try {
            await signIn.mutateAsync(values);
          } catch {
            form.setFieldValue("password", "");
            return;
          }
          await navigate({ to: safeRedirect(redirect) });
        })}
      >
        <Stack>
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
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            required
            {...form.getInputProps("password")}
          />
          <Button type="submit" loading={signIn.isPending}>
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
