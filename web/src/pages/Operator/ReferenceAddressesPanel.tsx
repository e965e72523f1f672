import { Alert, Badge, Button, FileInput, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { errorMessage } from "../../api/errors.ts";
import {
  type ReferenceAddressUpload,
  referenceAddressUploadsQuery,
  useUploadReferenceAddresses,
} from "../../api/operator.ts";
import { refocusAfterBusy } from "../../ui/focus.ts";
import { formatDateTime } from "../../ui/format.ts";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { EmptyState, LoadError, Loading } from "../../ui/states.tsx";

/** Shade 9 keeps the outline badge's words at AA on a striped row (as the Mail list's statuses). */
const STATUS: Record<ReferenceAddressUpload["status"], { label: string; color: string }> = {
  running: { label: "Loading", color: "blue.9" },
  done: { label: "Done", color: "teal.9" },
  failed: { label: "Failed", color: "red.9" },
};

const count = (value: number) => value.toLocaleString();

/** What the last column says: why it failed, or which rows were rejected and why. */
function noteOf(upload: ReferenceAddressUpload): string {
  if (upload.error) return upload.error;
  const reasons = Object.entries(upload.rejected_by_reason)
    .map(([reason, rows]) => `${reason}: ${count(rows)}`)
    .join(", ");
  return reasons ? `Rejected: ${reasons}` : "";
}

/**
 * Neighbour addresses from the console: upload an OpenAddresses file, which loads while the
 * service runs, and follow each upload's progress.
 */
export function ReferenceAddressesPanel() {
  const uploads = useQuery(referenceAddressUploadsQuery());
  const upload = useUploadReferenceAddresses();
  const [file, setFile] = useState<File | null>(null);
  // Upload is disabled once done (no file chosen): its focus goes to the file field for the next
  // file; refused, the file stays and Upload gets the focus back for another try.
  const fileField = useRef<HTMLButtonElement>(null);
  const uploadButton = useRef<HTMLButtonElement>(null);
  return (
    <section aria-labelledby="reference-addresses-heading">
      <Title order={2} size="h3" id="reference-addresses-heading" mb="sm">
        Neighbor addresses
      </Title>
      <Stack gap="sm">
        <Text size="sm">
          Neighbor mail finds the homes around a job among these addresses. Upload an OpenAddresses file (CSV
          or GeoJSON lines, gzipped or not) for the counties your contractors serve. It loads while the
          service keeps running; homes already loaded are skipped, and bad rows are counted and left out.
        </Text>
        <form
          onSubmit={async (event) => {
            event.preventDefault();
            if (!file) return;
            try {
              await upload.mutateAsync(file);
              setFile(null);
              refocusAfterBusy(() => fileField.current);
            } catch {
              // Shown below; the chosen file stays for another try.
              refocusAfterBusy(() => uploadButton.current);
            }
          }}
        >
          <Group align="flex-end">
            <FileInput
              ref={fileField}
              label="OpenAddresses file"
              placeholder="Choose a .csv, .geojson or .gz file"
              accept=".csv,.gz,.geojson,.geojsonl,.jsonl,.ndjson,text/csv,application/gzip"
              value={file}
              onChange={setFile}
              clearable
              style={{ flex: "1 1 260px" }}
            />
            <Button ref={uploadButton} type="submit" disabled={!file} loading={upload.isPending}>
              Upload
            </Button>
          </Group>
        </form>
        {upload.isError && (
          <Alert color="red" title="The upload was refused" role="alert">
            {errorMessage(upload.error)}
          </Alert>
        )}
        {uploads.isPending ? (
          <Loading label="Loading uploads" />
        ) : uploads.isError ? (
          <LoadError error={uploads.error} retry={() => uploads.refetch()} />
        ) : uploads.data.length === 0 ? (
          <EmptyState order={3} title="No uploads yet">
            Upload a county's file above.
          </EmptyState>
        ) : (
          <ScrollTable label="Address uploads" minWidth={720}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Started</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Rows read</Table.Th>
                  <Table.Th>Added</Table.Th>
                  <Table.Th>Already loaded</Table.Th>
                  <Table.Th>Rejected</Table.Th>
                  <Table.Th>Note</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {uploads.data.map((each) => (
                  <Table.Tr key={each.upload_id}>
                    <Table.Td>{formatDateTime(each.created_at)}</Table.Td>
                    <Table.Td>
                      <Badge color={STATUS[each.status].color} variant="outline">
                        {STATUS[each.status].label}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{count(each.rows_read)}</Table.Td>
                    <Table.Td>{count(each.rows_added)}</Table.Td>
                    <Table.Td>{count(each.rows_present)}</Table.Td>
                    <Table.Td>{count(each.rows_rejected)}</Table.Td>
                    <Table.Td>
                      <Text size="sm">{noteOf(each)}</Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}
      </Stack>
    </section>
  );
}
