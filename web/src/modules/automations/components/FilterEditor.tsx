import {
  ActionIcon,
  Autocomplete,
  Button,
  Group,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
} from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { useRef, useState } from "react";
import {
  type AutomationFormValues,
  FILTER_OPS,
  type FilterOp,
  newFilterRow,
  takesOf,
} from "../form-model.ts";

/** Conditions on the record's properties; all must pass for a card to go out. */
export function FilterEditor({
  form,
  propertyKeys,
}: {
  form: UseFormReturnType<AutomationFormValues>;
  propertyKeys: string[];
}) {
  const rows = form.values.filters;
  // The row just added: its property picker takes the focus as it mounts, so the keyboard goes on there.
  const focusOnMount = useRef<string | null>(null);
  const addFilter = () => {
    const row = newFilterRow();
    focusOnMount.current = row.key;
    form.insertListItem("filters", row);
  };
  const focusIfNew = (rowKey: string) => (input: HTMLInputElement | null) => {
    if (!input || focusOnMount.current !== rowKey) return;
    focusOnMount.current = null;
    input.focus();
  };
  // A picker's open list sits under it, over its row's errors: it stays closed while the row shows one
  // (a failed save), and opens again once the field is edited (which clears the error).
  const [openList, setOpenList] = useState<string | null>(null);
  const listProps = (listId: string, index: number) => ({
    dropdownOpened: openList === listId && !rowHasError(form.errors, index),
    onDropdownOpen: () => setOpenList(listId),
    onDropdownClose: () => setOpenList((open) => (open === listId ? null : open)),
  });
  return (
    <Stack gap="xs">
      {rows.length === 0 && (
        <Text size="sm" c="dimmed">
          No filters: every event of this type mails a card. Add a filter to mail only some, e.g. status is
          completed.
        </Text>
      )}
      {rows.map((row, index) => {
        const takes = takesOf(row.op);
        return (
          <Paper key={row.key} withBorder p="xs">
            <Group align="flex-end" gap="xs" wrap="wrap">
              <Autocomplete
                label={`Filter ${index + 1} property`}
                data={propertyKeys}
                placeholder="e.g. status"
                style={{ flex: "1 1 140px" }}
                ref={focusIfNew(row.key)}
                // Opened by a click or typing, not by the focus the builder moves here (a new row, a failed save).
                openOnFocus={false}
                {...listProps(`${row.key}-property`, index)}
                {...form.getInputProps(`filters.${index}.property`)}
              />
              <Select
                label={`Filter ${index + 1} condition`}
                data={FILTER_OPS.map(({ value, label }) => ({ value, label }))}
                allowDeselect={false}
                style={{ flex: "1 1 130px" }}
                {...listProps(`${row.key}-op`, index)}
                {...form.getInputProps(`filters.${index}.op`)}
                onChange={(op) => op && form.setFieldValue(`filters.${index}.op`, op as FilterOp)}
              />
              {takes !== "none" && (
                <TextInput
                  label={`Filter ${index + 1} value`}
                  description={
                    takes === "strings"
                      ? "Separate values with commas; any case matches"
                      : takes === "string"
                        ? "Any case matches (Won, won)"
                        : undefined
                  }
                  inputMode={takes === "number" ? "decimal" : undefined}
                  style={{ flex: "1 1 140px" }}
                  {...form.getInputProps(`filters.${index}.value`)}
                />
              )}
              <ActionIcon
                variant="default"
                size="lg"
                aria-label={`Remove filter ${index + 1}`}
                onClick={() => form.removeListItem("filters", index)}
              >
                <span aria-hidden>×</span>
              </ActionIcon>
            </Group>
          </Paper>
        );
      })}
      <Button variant="default" onClick={addFilter} style={{ alignSelf: "flex-start" }}>
        Add filter
      </Button>
    </Stack>
  );
}

const rowHasError = (errors: Record<string, unknown>, index: number) =>
  Object.entries(errors).some(([field, error]) => field.startsWith(`filters.${index}.`) && Boolean(error));
