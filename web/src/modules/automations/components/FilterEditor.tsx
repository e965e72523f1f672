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
                {...form.getInputProps(`filters.${index}.property`)}
              />
              <Select
                label={`Filter ${index + 1} condition`}
                data={FILTER_OPS.map(({ value, label }) => ({ value, label }))}
                allowDeselect={false}
                style={{ flex: "1 1 130px" }}
                {...form.getInputProps(`filters.${index}.op`)}
                onChange={(op) => op && form.setFieldValue(`filters.${index}.op`, op as FilterOp)}
              />
              {takes !== "none" && (
                <TextInput
                  label={`Filter ${index + 1} value`}
                  description={takes === "strings" ? "Separate values with commas" : undefined}
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
      <Button
        variant="default"
        onClick={() => form.insertListItem("filters", newFilterRow())}
        style={{ alignSelf: "flex-start" }}
      >
        Add filter
      </Button>
    </Stack>
  );
}
