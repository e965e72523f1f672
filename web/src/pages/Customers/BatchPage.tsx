import { Badge, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useSuspenseQuery } from "@tanstack/react-query";
import { getRouteApi } from "@tanstack/react-router";
import { type ImportBatchDetail, importBatchQuery } from "../../api/customers.ts";
import { BATCH_ORIGIN_WORDS } from "../../modules/customers/batch-origin.ts";
import { formatCalendarDay, formatDateTime } from "../../ui/format.ts";
import { AnchorLink, ButtonLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { PageHeader } from "../../ui/states.tsx";

const route = getRouteApi("/signed-in/customers/batches/$importId");

type SkippedRow = NonNullable<ImportBatchDetail["skipped_rows"]>[number];

/**
 * Why a row was not imported. A row skipped as having no address that still names something is a
 * CSV row whose street cell was empty: it names only its town or ZIP (docs/app.md, Past jobs).
 */
const skipReasonWords = (row: SkippedRow) => {
  if (row.reason === "not_found") return "Not found on the map (check the street, house number and ZIP)";
  return row.address === null ? "No address" : "No street in this row";
};

/** Where the geocoder placed a row, in words (its `precision`): the point's numbers mean nothing to a reader. */
const LOCATED_WORDS: Record<string, string> = {
  rooftop: "At the house",
  street: "On its street",
  postcode: "By ZIP only",
  locality: "By town only",
};
const locatedWords = (precision: string | null) => (precision && LOCATED_WORDS[precision]) || "—";

/**
 * What a row placed by its ZIP or town only means, said once under the counts when the batch has one:
 * its point is that place's middle, yet its card and a won deal's match go by the address.
 */
function approximateWords(rows: readonly { precision: string | null }[]): string | null {
  const byZip = rows.some((row) => row.precision === "postcode");
  const byTown = rows.some((row) => row.precision === "locality");
  if (!byZip && !byTown) return null;
  const said = [byZip && '"By ZIP only"', byTown && '"By town only"'].filter(Boolean).join(" or ");
  const place = [byZip && "ZIP", byTown && "town"].filter(Boolean).join(" or ");
  return ` Rows located ${said} sit at the middle of their ${place} on the map, not at the house: their cards still go to the address as written, and a deal won there is matched to its card by the address.`;
}

/** The rows this batch did not import, by their line in the file (or row number), and why. */
function SkippedRows({ batch }: { batch: ImportBatchDetail }) {
  const count = batch.skipped_no_address + batch.skipped_geocode_failed;
  if (count === 0) return null;
  if (batch.skipped_rows === null) {
    return (
      <Text size="sm" c="dimmed">
        This batch was imported before skipped rows were kept: only their count is known.
      </Text>
    );
  }
  const byLine = batch.skipped_rows.some((row) => row.line !== null);
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        {count === 1 ? "1 row was not imported" : `${count} rows were not imported`}
      </Title>
      <Text size="sm" c="dimmed">
        Fix them in your file and upload just those rows again.
      </Text>
      <ScrollTable label="Rows not imported" minWidth={720}>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{byLine ? "Line in your file" : "Row"}</Table.Th>
              <Table.Th>Address</Table.Th>
              <Table.Th>Customer</Table.Th>
              <Table.Th>Job id</Table.Th>
              <Table.Th>Why</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {batch.skipped_rows.map((row) => (
              <Table.Tr key={row.row_index}>
                <Table.Td>{row.line ?? row.row_index + 1}</Table.Td>
                <Table.Td>{row.address ?? "—"}</Table.Td>
                <Table.Td>{row.customer_name ?? ""}</Table.Td>
                <Table.Td>{row.external_id ?? ""}</Table.Td>
                <Table.Td>{skipReasonWords(row)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>
    </Stack>
  );
}

/** One imported batch: its rows as staged, with where each address was found. */
export function BatchPage() {
  const { importId } = route.useParams();
  const { data: batch } = useSuspenseQuery(importBatchQuery(importId));
  const staged = formatDateTime(batch.staged_at);
  return (
    <>
      <PageHeader
        title={`${batch.source === "jobs" ? "Past jobs" : "Customers"} imported ${staged}`}
        description={
          <AnchorLink to="/customers" search={{ tab: "past-jobs" }}>
            All past jobs
          </AnchorLink>
        }
        actions={
          <ButtonLink to="/customers/mailings/new" search={{ batches: batch.id }}>
            New mailing
          </ButtonLink>
        }
      />
      <Stack gap="md">
        <Group gap="sm" wrap="wrap">
          <Badge variant="light" color="blue">
            {BATCH_ORIGIN_WORDS[batch.origin]}
          </Badge>
          <Badge variant="light" color="green">
            {batch.staged === 1 ? "1 row imported" : `${batch.staged} rows imported`}
          </Badge>
          <Badge variant="light" color={batch.skipped_no_address > 0 ? "orange" : "gray"}>
            {batch.skipped_no_address} skipped: no address
          </Badge>
          <Badge variant="light" color={batch.skipped_geocode_failed > 0 ? "red" : "gray"}>
            {batch.skipped_geocode_failed} skipped: address not found on the map
          </Badge>
        </Group>
        <Text size="sm" c="dimmed">
          Each imported address was located on the map before it was stored.
          {approximateWords(batch.rows)}
        </Text>
        <SkippedRows batch={batch} />
        <Title order={2} size="h4">
          Imported rows
        </Title>
        <ScrollTable label="Rows of this batch" minWidth={960}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Address</Table.Th>
                <Table.Th>Customer</Table.Th>
                <Table.Th>Job id</Table.Th>
                <Table.Th>Job date</Table.Th>
                <Table.Th>Job type</Table.Th>
                <Table.Th>Located</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {batch.rows.map((row, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a batch's rows have no id and never reorder (row order)
                <Table.Tr key={index}>
                  <Table.Td>{row.address}</Table.Td>
                  <Table.Td>{row.customer_name ?? ""}</Table.Td>
                  <Table.Td>{row.external_id ?? ""}</Table.Td>
                  <Table.Td>{row.completed_at ? formatCalendarDay(row.completed_at) : ""}</Table.Td>
                  <Table.Td>{row.job_type ?? ""}</Table.Td>
                  <Table.Td>{row.latitude === null ? "—" : locatedWords(row.precision)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      </Stack>
    </>
  );
}
