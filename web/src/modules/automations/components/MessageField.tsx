import { Button, Group, Menu, Textarea } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { useRef } from "react";
import type { AutomationFormValues } from "../form-model.ts";
import { insertMergeField } from "../merge-insert.ts";

const BUSINESS_FIELDS = [
  { token: "{{org_name}}", label: "Business name" },
  { token: "{{phone}}", label: "Business phone" },
  { token: "{{website}}", label: "Business website" },
] as const;

/**
 * The merge fields offered for each audience: a neighbour's card knows the job next door's street
 * and city, never its customer's name (a neighbour's `{{client_name}}` prints "Neighbor").
 */
const FIELDS_FOR = {
  home: {
    hint: "Merge fields like {{client_name}} are filled from each record.",
    fields: [
      { token: "{{client_name}}", label: "Customer name" },
      { token: "{{street}}", label: "Street" },
      { token: "{{city}}", label: "City" },
      ...BUSINESS_FIELDS,
    ],
  },
  neighbours: {
    hint: "Merge fields like {{job_street}} are filled from the job next door.",
    fields: [
      { token: "{{job_street}}", label: "The job's street" },
      { token: "{{job_city}}", label: "The job's city" },
      { token: "{{street}}", label: "Their street" },
      ...BUSINESS_FIELDS,
    ],
  },
} as const;

/** The card's message with a picker that inserts merge fields where the cursor is. */
export function MessageField({
  form,
  propertyKeys,
}: {
  form: UseFormReturnType<AutomationFormValues>;
  propertyKeys: string[];
}) {
  const textarea = useRef<HTMLTextAreaElement>(null);
  const { hint, fields } = FIELDS_FOR[form.values.audience];
  // A custom field needs a fallback for records without it; the cursor lands where it is typed.
  const customFields = propertyKeys
    .filter((key) => key.startsWith("cf_"))
    .map((key) => ({ token: `{{${key}|}}`, label: key }));

  const insert = (token: string) => {
    const element = textarea.current;
    const current = form.values.message;
    const start = element?.selectionStart ?? current.length;
    const end = element?.selectionEnd ?? current.length;
    const inserted = insertMergeField(current, start, end, token);
    form.setFieldValue("message", inserted.text);
    const caret = inserted.tokenAt + (token.endsWith("|}}") ? token.length - 2 : token.length);
    requestAnimationFrame(() => {
      element?.focus();
      element?.setSelectionRange(caret, caret);
    });
  };

  return (
    <div>
      <Textarea
        ref={textarea}
        label="Message"
        required
        description={hint}
        autosize
        minRows={3}
        maxRows={8}
        {...form.getInputProps("message")}
      />
      <Group mt={6}>
        {/* No focus placeholder: a menu may hold only its items (axe: aria-required-children); the
            first item takes the focus instead. */}
        {/* In place, not in a portal: opened, its fields stay inside the page's main region (axe: region). */}
        <Menu position="bottom-start" withinPortal={false} withInitialFocusPlaceholder={false}>
          <Menu.Target>
            <Button variant="light" size="xs">
              Insert merge field
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Label>Fields</Menu.Label>
            {fields.map((field) => (
              <Menu.Item key={field.token} onClick={() => insert(field.token)}>
                {field.label} <code>{field.token}</code>
              </Menu.Item>
            ))}
            {customFields.length > 0 && <Menu.Label>From your CRM</Menu.Label>}
            {customFields.map((field) => (
              <Menu.Item key={field.token} onClick={() => insert(field.token)}>
                {field.label}
              </Menu.Item>
            ))}
          </Menu.Dropdown>
        </Menu>
      </Group>
    </div>
  );
}
