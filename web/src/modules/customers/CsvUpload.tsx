import { Alert, Button, FileInput, Group, List, Select, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { useEffect, useRef, useState } from "react";
import {
  type ColumnMapping,
  type CsvPreview,
  newRequestId,
  type RowProblem,
  type UploadPurpose,
  usePreviewCsv,
  useUploadCsv,
} from "../../api/customers.ts";
import { ApiError, errorMessage } from "../../api/errors.ts";
import { refocusAfterBusy, useRefocusAfterBusy } from "../../ui/focus.ts";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { rowProblemInWords } from "./row-problems.ts";

const FIELD_LABELS: Record<string, string> = {
  street: "Street (or the whole address)",
  city: "City",
  state: "State",
  zip: "ZIP",
  notes: "Notes",
  customer_name: "Customer name",
  external_id: "Job or record id",
  completed_at: "Job date",
  job_type: "Job type (e.g. furnace install)",
};

type RowProblems = { rows?: RowProblem[]; count?: number } | undefined;

/** A refusal's bad rows (the first 200) and how many there are in all. */
const rowProblemsOf = (error: unknown): { rows: RowProblem[]; count: number } => {
  const details = error instanceof ApiError ? (error.details as RowProblems) : undefined;
  const rows = details?.rows ?? [];
  return { rows, count: details?.count ?? rows.length };
};

/**
 * The same upload (its request id) sent while its first sending is still being imported: the file is
 * on its way in, once, and nothing failed. Only a retry after a lost answer gets here now that a
 * double-click sends once; a "Nothing was added" for it had the contractor choose the file again,
 * which imported it twice.
 */
const isStillImporting = (error: unknown) => error instanceof ApiError && error.code === "import_in_progress";

const rowsInWords = (count: number) => `${count} row${count === 1 ? "" : "s"}`;

function RowProblemList({ problems, label }: { problems: RowProblem[]; label: string }) {
  return (
    <List size="sm" mt="xs" aria-label={label}>
      {problems.map((problem) => (
        <List.Item key={problem.line}>
          Line {problem.line}: {rowProblemInWords(problem.message)}
        </List.Item>
      ))}
    </List>
  );
}

/**
 * A CSV upload in three steps: pick the file (the server reads its header and first rows), say which
 * column is which (guessed from common header names), then send it. Refused rows are listed by line;
 * the contractor may then send the file again without them (a new upload, so a new request id).
 */
const NO_STREET_ID = "csv-no-street";

/** A spreadsheet saved with another separator (Excel's "CSV" in many countries uses semicolons) reads as one column. */
const ONE_COLUMN_SEPARATORS = [
  { mark: ";", name: "semicolons" },
  { mark: "\t", name: "tabs" },
];

/** Why the file cannot be sent yet: no column holds the street (and, for a file read as one column, why not). */
function noStreetReason(columns: string[]): string {
  const separator =
    columns.length === 1 ? ONE_COLUMN_SEPARATORS.find(({ mark }) => columns[0]?.includes(mark)) : undefined;
  if (separator)
    return `This file separates its columns with ${separator.name}, so it reads as one column. In your spreadsheet, save it as "CSV (comma delimited)" and choose that file.`;
  return "Choose the column that holds the street to continue.";
}

export function CsvUpload({ purpose, submitLabel }: { purpose: UploadPurpose; submitLabel: string }) {
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<CsvPreview | null>(null);
  const [mapping, setMapping] = useState<ColumnMapping>({});
  // One per chosen file and mapping: sending it again (a retry) adds nothing twice; a new file or
  // another column choice is a new upload.
  const [requestId, setRequestId] = useState(newRequestId);
  const previewCsv = usePreviewCsv();
  const upload = useUploadCsv(purpose);
  // Sends once while an upload is on its way: the button's busy state comes a render too late for a
  // double-click's second click, which went out with the same request id and answered 409.
  const [stillImporting, setStillImporting] = useState(false);
  const send = useSingleFlight(async (variables: Parameters<typeof upload.mutateAsync>[0]) => {
    try {
      await upload.mutateAsync(variables);
      setStillImporting(false);
    } catch (error) {
      // Shown beside the form (the mutation keeps the error); a repeat while the first still runs is no failure.
      setStillImporting(isStillImporting(error));
    }
  });
  const uploadButton = useRefocusAfterBusy(upload.isPending);
  // Done, the button steps away with the mapping: the focus goes to the file field, for the next file.
  const fileField = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (upload.isSuccess) refocusAfterBusy(() => fileField.current);
  }, [upload.isSuccess]);

  const choose = async (picked: File | null) => {
    setFile(picked);
    setRequestId(newRequestId());
    setPreview(null);
    setStillImporting(false);
    upload.reset();
    if (!picked) return;
    const read = await previewCsv.mutateAsync({ file: picked, purpose }).catch(() => null);
    if (read) {
      setPreview(read);
      setMapping(read.mapping);
    }
  };

  const problems = rowProblemsOf(upload.error);
  // The rows a skipping upload would take: the file's rows less the bad ones.
  const goodRows = preview && problems.count > 0 ? preview.total_rows - problems.count : 0;
  const skipBadRows = () => {
    if (!file) return;
    const skipping = newRequestId();
    setRequestId(skipping);
    void send({ file, mapping, requestId: skipping, skipInvalid: true });
  };
  const columnOptions = preview?.columns.map((column) => ({ value: column, label: column })) ?? [];

  return (
    <Stack gap="md">
      <FileInput
        ref={fileField}
        label="CSV file"
        description={`A header line first; at most ${purpose === "customers" ? 1000 : 500} rows and 1 MB.`}
        accept=".csv,text/csv"
        placeholder="Choose a CSV file"
        value={file}
        onChange={choose}
        clearable
        clearButtonProps={{ "aria-label": "Remove the file" }}
      />
      {previewCsv.isError && (
        <Alert color="red" title="The file could not be read">
          {errorMessage(previewCsv.error)}
        </Alert>
      )}
      {/* Once sent, the mapping steps away: the answer below is the file's outcome, not a step to take again. */}
      {preview && !upload.isSuccess && (
        <>
          <Text size="sm">
            {preview.total_rows} row{preview.total_rows === 1 ? "" : "s"} read. Check which column holds each
            part of the address.
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }}>
            {Object.keys(preview.mapping).map((field) => (
              <Select
                key={field}
                label={FIELD_LABELS[field] ?? field}
                placeholder="Not in this file"
                data={columnOptions}
                value={mapping[field] ?? null}
                onChange={(value) => {
                  setMapping((current) => ({ ...current, [field]: value }));
                  setRequestId(newRequestId());
                }}
                clearable
                clearButtonProps={{ "aria-label": `No column for ${FIELD_LABELS[field] ?? field}` }}
                required={field === "street"}
              />
            ))}
          </SimpleGrid>
          {/* Above the table, not its caption: a caption centred on a table wider than a phone is cut. */}
          <Text size="sm" c="dimmed">
            {preview.rows.length === 1
              ? "The first row, as read:"
              : `The first ${preview.rows.length} rows, as read:`}
          </Text>
          <ScrollTable label="First rows of the file" minWidth={Math.max(480, preview.columns.length * 140)}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Line</Table.Th>
                  {preview.columns.map((column) => (
                    <Table.Th key={column}>{column}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {preview.rows.map((row) => (
                  <Table.Tr key={row.line}>
                    <Table.Td>{row.line}</Table.Td>
                    {preview.columns.map((column, index) => (
                      <Table.Td key={column}>{row.cells[index] ?? ""}</Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
          <Group>
            <Button
              ref={uploadButton}
              loading={upload.isPending}
              disabled={!file || !mapping.street}
              aria-describedby={mapping.street ? undefined : NO_STREET_ID}
              onClick={() => file && void send({ file, mapping, requestId })}
            >
              {submitLabel}
            </Button>
            {!mapping.street && (
              <Text size="sm" id={NO_STREET_ID}>
                {noStreetReason(preview.columns)}
              </Text>
            )}
          </Group>
        </>
      )}
      {upload.isSuccess && (
        <Alert color="green" title="Uploaded" role="status">
          <Text size="sm">{upload.data.summary}</Text>
          <Text size="sm" mt="xs">
            To send more, choose another file above.
          </Text>
          {upload.data.skippedCount > 0 && (
            <>
              <Text size="sm" mt="xs">
                {rowsInWords(upload.data.skippedCount)} {upload.data.skippedCount === 1 ? "was" : "were"}{" "}
                skipped
                {upload.data.skippedCount > upload.data.skipped.length
                  ? ` (the first ${upload.data.skipped.length} listed)`
                  : ""}
                :
              </Text>
              <RowProblemList problems={upload.data.skipped} label="Rows that were skipped" />
            </>
          )}
        </Alert>
      )}
      {stillImporting && !upload.isSuccess && (
        <Alert color="blue" title="Still importing" role="status">
          <Text size="sm">
            This file is still being imported from the first time it was sent. It is added once, however often
            it is sent: choose Check again in a moment to see what it added.
          </Text>
          <Button
            mt="sm"
            variant="default"
            loading={upload.isPending}
            onClick={() => file && void send({ file, mapping, requestId })}
          >
            Check again
          </Button>
        </Alert>
      )}
      {upload.isError && !stillImporting && (
        <Alert color="red" title="Nothing was added" role="alert">
          <Text size="sm">{errorMessage(upload.error)}</Text>
          {problems.rows.length > 0 && (
            <RowProblemList problems={problems.rows} label="Rows that cannot be imported" />
          )}
          {goodRows > 0 && (
            <Button
              mt="sm"
              variant="default"
              onClick={skipBadRows}
              // A long label wraps on a phone instead of running past the alert.
              styles={{
                root: { height: "auto", paddingBlock: 8 },
                label: { whiteSpace: "normal", textAlign: "center", lineHeight: 1.4 },
              }}
            >
              {purpose === "customers" ? "Add" : "Import"} the other {rowsInWords(goodRows)}, skip{" "}
              {problems.count === 1 ? "this one" : "these"}
            </Button>
          )}
        </Alert>
      )}
    </Stack>
  );
}
