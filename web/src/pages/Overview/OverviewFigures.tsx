import { Card, Paper, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { type OverviewFigures, overviewQuery, type PeriodFigures } from "../../api/overview.ts";
import { FigureBars } from "../../ui/FigureBars.tsx";
import { chartMonth, exactMoney, formatDateTime, money, returnOnSpend } from "../../ui/format.ts";
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

/**
 * One bar per month, its number written beside it. Mantine's BarsList is plain HTML: the Recharts
 * bar charts this replaced took ~0.6 s of the main thread to draw on a first visit (three of them),
 * more than the rest of Overview together, and showed no number without a pointer.
 */
function MonthlyChart({ months }: { months: OverviewFigures["months"] }) {
  const label = (index: number) => chartMonth(months[index]!.month, index);
  return (
    <section aria-labelledby="monthly-heading">
      <Title order={2} size="h3" id="monthly-heading" mb="sm">
        Cards and attributed revenue per month
      </Title>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <MonthlyBars
          title="Cards mailed"
          bars={months.map((month, index) => ({ name: label(index), value: month.cards_mailed }))}
          color="indigo"
        />
        <MonthlyBars
          title="Attributed revenue"
          bars={months.map((month, index) => ({ name: label(index), value: month.attributed_revenue }))}
          color="teal"
          format={money}
        />
      </SimpleGrid>
    </section>
  );
}

function MonthlyBars(props: {
  title: string;
  bars: { name: string; value: number }[];
  color: string;
  format?: (value: number) => string;
}) {
  return (
    <Card withBorder component="figure" m={0} aria-label={`${props.title} per month over the last 12 months`}>
      <Text component="figcaption" size="sm" fw={600} mb="xs">
        {props.title}
      </Text>
      <FigureBars data={props.bars} barColor={props.color} valueFormatter={props.format} />
    </Card>
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
        <ScrollTable label="Latest leads table" minWidth={560}>
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
                  <Table.Td>{formatDateTime(lead.received_at)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
    </section>
  );
}
