import { Group, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { type SourceJobRevenue, sourceJobRevenueQuery } from "../../api/neighbours.ts";
import { exactMoney, formatDay, money, returnOnSpend } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { EmptyState, LoadError, Loading } from "../../ui/states.tsx";

/** Revenue by source job: what each finished job's neighbour mail earned (never the job's house number). */
export function SourceJobRevenueSection() {
  const revenue = useQuery(sourceJobRevenueQuery());
  return (
    <section aria-labelledby="revenue-by-source-job">
      <Title order={2} size="h4" mb={4} id="revenue-by-source-job">
        By source job
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Neighbor mail: the cards each finished job sent to the homes around it, and what they earned.
      </Text>
      {revenue.isPending ? (
        <Loading label="Loading revenue by source job" />
      ) : revenue.isError ? (
        <LoadError error={revenue.error} retry={() => revenue.refetch()} />
      ) : revenue.data.jobs.length === 0 ? (
        <EmptyState order={3} title="No neighbor mail yet">
          No neighbor automation has mailed around a job yet. To mail the homes around each finished job,{" "}
          <AnchorLink to="/automations/new">build an automation</AnchorLink> and choose “Neighbors of the
          record's home” under Mail to.
        </EmptyState>
      ) : (
        <SourceJobTable data={revenue.data} />
      )}
    </section>
  );
}

function SourceJobTable({ data }: { data: SourceJobRevenue }) {
  const { totals } = data;
  return (
    <>
      <ScrollTable label="Revenue by source job" minWidth={600}>
        <Table striped verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Job</Table.Th>
              <Table.Th>Date</Table.Th>
              <Table.Th>Cards sent</Table.Th>
              <Table.Th>Leads</Table.Th>
              <Table.Th>Won deals</Table.Th>
              <Table.Th>Revenue</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.jobs.map((job) => (
              <Table.Tr key={job.campaign_id}>
                <Table.Th scope="row" fw={500}>
                  {job.job_street || "Unknown street"}
                  {job.job_city ? `, ${job.job_city}` : ""}
                  {job.reason && (
                    <Text size="xs" c="dimmed" fw={400}>
                      No card: {job.reason}
                    </Text>
                  )}
                </Table.Th>
                <Table.Td style={{ whiteSpace: "nowrap" }}>{formatDay(job.created_at)}</Table.Td>
                <Table.Td>{job.cards_sent}</Table.Td>
                <Table.Td>{job.leads}</Table.Td>
                <Table.Td>{job.won_deals}</Table.Td>
                <Table.Td>{money(job.revenue)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
          <Table.Tfoot>
            <Table.Tr>
              <Table.Th scope="row">
                All neighbor automations ({totals.jobs} {totals.jobs === 1 ? "job" : "jobs"})
              </Table.Th>
              <Table.Td />
              <Table.Td>{totals.cards_sent}</Table.Td>
              <Table.Td>{totals.leads}</Table.Td>
              <Table.Td>{totals.won_deals}</Table.Td>
              <Table.Td>{money(totals.revenue)}</Table.Td>
            </Table.Tr>
          </Table.Tfoot>
        </Table>
      </ScrollTable>
      <Group gap="xl" style={{ rowGap: 4 }} mt="sm" aria-label="Neighbor mail against its cost" role="group">
        <Text size="sm">
          Cost of the cards: <strong>{exactMoney(totals.cost)}</strong>
        </Text>
        <Text size="sm">
          Revenue: <strong>{money(totals.revenue)}</strong>
        </Text>
        <Text size="sm">
          Return on spend: <strong>{returnOnSpend(totals.return_on_spend)}</strong>
        </Text>
      </Group>
    </>
  );
}
