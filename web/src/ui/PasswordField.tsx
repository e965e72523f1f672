import { PasswordInput, type PasswordInputProps } from "@mantine/core";
import { useId } from "react";

/**
 * Mantine's PasswordInput as a screen reader needs it. Unlike TextInput it renders its input
 * `withAria: false`: a refused password was marked `data-invalid` only, neither announced as invalid
 * nor tied to the words saying why. The wrapper's ids are Mantine's (`<id>-error`, `<id>-description`).
 * Its show/hide button is a Tab stop (Mantine leaves it out of the tab order): a keyboard user checks
 * a typed password too.
 */
export function PasswordField(props: PasswordInputProps) {
  const generatedId = useId();
  const id = props.id ?? generatedId;
  const invalid = Boolean(props.error);
  const describedBy = [
    props.description ? `${id}-description` : undefined,
    invalid && typeof props.error !== "boolean" ? `${id}-error` : undefined,
  ].filter(Boolean);
  return (
    <PasswordInput
      {...props}
      id={id}
      visibilityToggleFocusable
      aria-invalid={invalid || undefined}
      aria-describedby={describedBy.length > 0 ? describedBy.join(" ") : undefined}
    />
  );
}
