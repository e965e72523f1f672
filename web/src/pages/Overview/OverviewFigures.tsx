import { BarChart } from "@mantine/charts";
import { Card, Paper, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { type OverviewFigures, overviewQuery, type PeriodFigures } from "../../api/overview.ts";
import { chartMonth, exactMoney, money, returnOnSpend } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { LoadError, Loading } from "../../ui/states.tsx";

/** This month and the last 12 months, the monthly chart, and the last leads. */
export function OverviewFiguresSection() {
  const overview = useQuery(overviewQuery());
  if (overview.isPending) return <Loading label="Loading your figures" />;
  if (overview.isError) return <LoadError error={overview.error} retry={() => overview.refetch()} />;
  return (
    <Stack gap="xl">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Period title="This month" figures={overview.data.this_month} />
        <Period title="Last 12 months" figures={overview.data.last_12_months} />
      </SimpleGrid>
      <MonthlyChart months={overview.data.months} />
      <LatestLeads leads={overview.data.latest_leads} />
    </Stack>
  );
}

function Period({ title, figures }: { title: string; figures: PeriodFigures }) {
  // A figure, or a dimmed hint where there is none to show yet.
  const rows: [string, string, string?][] = [
    ["Cards mailed", String(figures.cards_mailed)],
    ["Landing-page visits", String(figures.landing_visits)],
    ["Leads", String(figures.leads)],
    ["Won deals attributed", String(figures.won_deals)],
    ["Attributed revenue", money(figures.attributed_revenue)],
    figures.cost === null
      ? ["Cost", "—", "Set a cost per card in Settings"]
      : ["Cost", exactMoney(figures.cost)],
    ["Return on spend", returnOnSpend(figures.return_on_spend)],
  ];
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label={title}>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      <SimpleGrid cols={2} spacing="sm" component="dl" m={0}>
        {rows.map(([label, value, hint]) => (
          <div key={label}>
            <Text component="dt" size="sm" c="dimmed">
              {label}
            </Text>
            <Text component="dd" m={0} fw={600} size="lg">
              {value}
              {hint && (
                <Text component="span" display="block" size="xs" fw={400} c="dimmed">
                  {hint}
                </Text>
              )}
            </Text>
          </div>
        ))}
      </SimpleGrid>
    </Paper>
  );
}

function MonthlyChart({ months }: { months: OverviewFigures["months"] }) {
  const data = months.map((month, index) => ({
    month: chartMonth(month.month, index),
    cards: month.cards_mailed,
    revenue: month.attributed_revenue,
  }));
  return (
    <section aria-labelledby="monthly-heading">
      <Title order={2} size="h3" id="monthly-heading" mb="sm">
        Cards and attributed revenue per month
      </Title>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder role="img" aria-label="Bar chart of cards mailed per month over the last 12 months">
          <Text size="sm" fw={600} mb="xs">
            Cards mailed
          </Text>
          <BarChart
            h={200}
            data={data}
            dataKey="month"
            series={[{ name: "cards", label: "Cards", color: "indigo.8" }]}
            yAxisProps={{ allowDecimals: false }}
          />
        </Card>
        <Card
          withBorder
          role="img"
          aria-label="Bar chart of attributed revenue per month over the last 12 months"
        >
          <Text size="sm" fw={600} mb="xs">
            Attributed revenue
          </Text>
          <BarChart
            h={200}
            data={data}
            dataKey="month"
            series={[{ name: "revenue", label: "Revenue", color: "teal.9" }]}
            valueFormatter={(value) => money(value)}
            yAxisProps={{ allowDecimals: false }}
          />
        </Card>
      </SimpleGrid>
    </section>
  );
}

function LatestLeads({ leads }: { leads: OverviewFigures["latest_leads"] }) {
  return (
    <section aria-labelledby="latest-leads-heading">
      <Title order={2} size="h3" id="latest-leads-heading" mb="sm">
        Latest leads
      </Title>
      {leads.length === 0 ? (
        <Text>No leads yet. They show here as soon as someone answers a postcard.</Text>
      ) : (
        <ScrollTable label="Latest leads" minWidth={560}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Address</Table.Th>
                <Table.Th>Automation</Table.Th>
                <Table.Th>Received</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {leads.map((lead) => (
                <Table.Tr key={lead.id}>
                  <Table.Td>
                    <AnchorLink to="/leads/$leadId" params={{ leadId: lead.id }}>
                      {lead.name || "No name given"}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td>{lead.address || "—"}</Table.Td>
                  <Table.Td>{lead.automation_name ?? lead.campaign_name ?? "—"}</Table.Td>
                  <Table.Td>{new Date(lead.received_at).toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
    </section>
  );
}
