import { Button, Fieldset, Stack, Text, TextInput } from "@mantine/core";
import { isNotEmpty, useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useNavigate } from "@tanstack/react-router";
import { type Session, useChangePassword, useSignOutEverywhere, useUpdateMe } from "../../api/session.ts";
import { focusFirstRefused, useRefocusAfterBusy } from "../../ui/focus.ts";
import { PasswordField } from "../../ui/PasswordField.tsx";
import { NEW_PASSWORD_HINT, newPasswordRule, repeatsPasswordIn } from "../../ui/password-rules.ts";
import { sayOnFields } from "../../ui/refusal-on-fields.ts";
import { LeadAlertsSwitch } from "./LeadAlertsSwitch.tsx";

/** The signed-in person's own name and password. */
export function AccountForms({ session }: { session: Session }) {
  const updateMe = useUpdateMe();
  const changePassword = useChangePassword();
  const saveNameButton = useRefocusAfterBusy(updateMe.isPending);
  const changePasswordButton = useRefocusAfterBusy(changePassword.isPending);
  const profile = useForm({
    initialValues: { name: session.user.name },
    validate: { name: isNotEmpty("Enter your name") },
  });
  const password = useForm({
    initialValues: { current_password: "", new_password: "", confirm: "" },
    validate: {
      current_password: isNotEmpty("Enter your current password"),
      new_password: newPasswordRule,
      confirm: repeatsPasswordIn("new_password"),
    },
  });

  return (
    <Stack gap="xl" maw={520}>
      <form
        onSubmit={profile.onSubmit(async (values, event) => {
          const formElement = event?.currentTarget ?? null;
          try {
            await updateMe.mutateAsync({ name: values.name.trim() });
            notifications.show({ color: "green", title: "Saved", message: "Your name is saved." });
          } catch (error) {
            sayOnFields(error, profile.setErrors, formElement);
          }
        }, focusFirstRefused)}
        noValidate
      >
        <Fieldset legend="Your profile">
          <Stack>
            <TextInput label="Email" value={session.user.email} readOnly />
            <TextInput label="Your name" autoComplete="name" {...profile.getInputProps("name")} />
            <Button
              ref={saveNameButton}
              type="submit"
              loading={updateMe.isPending}
              style={{ alignSelf: "flex-start" }}
            >
              Save name
            </Button>
          </Stack>
        </Fieldset>
      </form>
      <form
        onSubmit={password.onSubmit(async ({ current_password, new_password }, event) => {
          const formElement = event?.currentTarget ?? null;
          try {
            await changePassword.mutateAsync({ current_password, new_password });
          } catch (error) {
            sayOnFields(error, password.setErrors, formElement);
            return;
          }
          password.reset();
          notifications.show({
            color: "green",
            title: "Password changed",
            message: "Use the new one next time.",
          });
        }, focusFirstRefused)}
        noValidate
      >
        <Fieldset legend="Password">
          <Stack>
            <PasswordField
              label="Current password"
              autoComplete="current-password"
              {...password.getInputProps("current_password")}
            />
            <PasswordField
              label="New password"
              description={NEW_PASSWORD_HINT}
              autoComplete="new-password"
              {...password.getInputProps("new_password")}
            />
            <PasswordField
              label="Repeat the new password"
              autoComplete="new-password"
              {...password.getInputProps("confirm")}
            />
            <Button
              ref={changePasswordButton}
              type="submit"
              loading={changePassword.isPending}
              style={{ alignSelf: "flex-start" }}
            >
              Change password
            </Button>
          </Stack>
        </Fieldset>
      </form>
      <LeadAlertsSwitch />
      <SignOutEverywhere />
    </Stack>
  );
}

function SignOutEverywhere() {
  const signOutEverywhere = useSignOutEverywhere();
  const navigate = useNavigate();
  return (
    <Fieldset legend="Where you are signed in">
      <Stack align="flex-start">
        <Text size="sm">
          Lost a phone, or signed in on someone else&apos;s computer? End every session of yours, this one
          included.
        </Text>
        <Button
          variant="outline"
          color="red.9"
          loading={signOutEverywhere.isPending}
          onClick={async () => {
            await signOutEverywhere.mutateAsync().then(
              () => navigate({ to: "/sign-in", search: {} }),
              () => undefined,
            );
          }}
        >
          Sign out everywhere
        </Button>
      </Stack>
    </Fieldset>
  );
}
