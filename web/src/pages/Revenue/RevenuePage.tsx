import { Anchor, Badge, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { attributionWords, wonDealMatchWords } from "../../api/leads.ts";
import {
  CONVERSIONS_CSV_URL,
  type Conversion,
  type Revenue,
  revenueQuery,
  type SpendFigures,
} from "../../api/revenue.ts";
import { SourceJobRevenueSection } from "../../modules/neighbours/SourceJobRevenue.tsx";
import { exactMoney, formatCalendarDay, formatMonth, money, returnOnSpend } from "../../ui/format.ts";
import { AnchorLink, ButtonLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { StagedRows } from "../../ui/staged-rows.tsx";
import { EmptyState, LoadError, Loading, PageHeader } from "../../ui/states.tsx";
import { ExperimentSummary } from "./ExperimentSummary.tsx";
import "./key-column.css";

/** The figures both tables show, in the same order, after their first column. */
const FIGURE_HEADINGS = [
  "Cards mailed",
  "Leads",
  "Won deals",
  "Revenue",
  "Cost",
  "Return on spend",
  "Cost per lead",
  "Cost per won deal",
];

function FigureCells({
  figures,
}: {
  figures: Omit<SpendFigures, "automation_id" | "automation_name" | "campaign_id" | "experiment">;
}) {
  return (
    <>
      <Table.Td>{figures.cards_mailed}</Table.Td>
      <Table.Td>{figures.leads}</Table.Td>
      <Table.Td>{figures.won_deals}</Table.Td>
      <Table.Td>{money(figures.attributed_revenue)}</Table.Td>
      <Table.Td>{exactMoney(figures.cost)}</Table.Td>
      <Table.Td style={{ whiteSpace: "nowrap" }}>{returnOnSpend(figures.return_on_spend)}</Table.Td>
      <Table.Td>{exactMoney(figures.cost_per_lead)}</Table.Td>
      <Table.Td>{exactMoney(figures.cost_per_won_deal)}</Table.Td>
    </>
  );
}

export function RevenuePage() {
  const revenue = useQuery(revenueQuery());
  return (
    <>
      <PageHeader
        title="Revenue"
        description="Won deals attributed to the postcards that caused them, over the last 12 months."
      />
      {revenue.isPending ? (
        <Loading label="Loading your revenue" />
      ) : revenue.isError ? (
        <LoadError error={revenue.error} retry={() => revenue.refetch()} />
      ) : (
        <RevenueReport revenue={revenue.data} />
      )}
    </>
  );
}

function RevenueReport({ revenue }: { revenue: Revenue }) {
  const noCost = revenue.by_month.every((month) => month.cost === null);
  // Each table's key column stays in sight as the figures scroll sideways on a phone (key-column.css).
  return (
    <Stack gap="xl" className="pl-key-columns">
      {noCost && (
        <EmptyState
          title="Cost and return need your cost per card"
          action={
            <ButtonLink to="/settings" search={{ tab: "profile" }} variant="light">
              Set your cost per card
            </ButtonLink>
          }
        >
          Enter what one postcard costs you in Settings, and every figure below shows its cost and return.
        </EmptyState>
      )}
      <ByAutomation rows={revenue.by_automation} />
      <ExperimentSummary rows={revenue.by_automation} />
      <SourceJobRevenueSection />
      <ByMonth rows={revenue.by_month} />
      <Conversions conversions={revenue.conversions} />
    </Stack>
  );
}

function ByAutomation({ rows }: { rows: Revenue["by_automation"] }) {
  return (
    <section aria-labelledby="revenue-by-automation">
      <Title order={2} size="h4" mb="sm" id="revenue-by-automation">
        By automation
      </Title>
      {rows.length === 0 ? (
        <EmptyState order={3} title="No cards mailed yet">
          No automation or mailing has mailed a card in the last 12 months.
        </EmptyState>
      ) : (
        <ScrollTable label="Revenue by automation" minWidth={900}>
          <Table striped verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Automation</Table.Th>
                {FIGURE_HEADINGS.map((heading) => (
                  <Table.Th key={heading}>{heading}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                // A reactivation mailing's row is its own (two mailings may share a name): keyed by its campaign.
                <Table.Tr key={row.automation_id ?? row.campaign_id ?? row.automation_name}>
                  <Table.Th scope="row" fw={500}>
                    {row.automation_name}
                  </Table.Th>
                  <FigureCells figures={row} />
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
    </section>
  );
}

function ByMonth({ rows }: { rows: Revenue["by_month"] }) {
  return (
    <section aria-labelledby="revenue-by-month">
      <Title order={2} size="h4" mb="sm" id="revenue-by-month">
        By month
      </Title>
      <ScrollTable label="Revenue by month" minWidth={960}>
        <Table striped verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Month</Table.Th>
              <Table.Th>Landing-page visits</Table.Th>
              {FIGURE_HEADINGS.map((heading) => (
                <Table.Th key={heading}>{heading}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={row.month}>
                <Table.Th scope="row" fw={500} style={{ whiteSpace: "nowrap" }}>
                  {formatMonth(row.month)}
                </Table.Th>
                <Table.Td>{row.landing_visits}</Table.Td>
                <FigureCells figures={row} />
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>
    </section>
  );
}

/**
 * Who a won deal was for, the row's name: the customer's name, else the home's street (the address
 * column has the rest). A CRM's deal name or id ("deal-2001") named the row before, beside the names
 * of deals marked won in the app, and said nothing of whose home it was.
 */
const customerOf = (conversion: Conversion) =>
  conversion.customer_name ?? (conversion.address.split(",")[0]?.trim() || conversion.address);

/**
 * The deal as the CRM names it, beside the customer: its name, else its id. A deal marked won in the
 * app has none of its own: it carries the lead's name, which the customer column already says.
 */
const crmDealOf = (conversion: Conversion) => {
  const name =
    conversion.reported_by === "app" || conversion.deal_name === conversion.customer_name
      ? null
      : conversion.deal_name;
  return name ?? conversion.deal_id ?? "—";
};

function Conversions({ conversions }: { conversions: Conversion[] }) {
  return (
    <section aria-labelledby="revenue-conversions">
      <Group justify="space-between" align="flex-end" mb="sm" wrap="wrap">
        <Title order={2} size="h4" id="revenue-conversions">
          Won deals attributed
        </Title>
        {/* With none, the file would hold only its headings: the empty state below says why there are none. */}
        {conversions.length > 0 && (
          <Anchor href={CONVERSIONS_CSV_URL} download="conversions.csv">
            Download CSV
          </Anchor>
        )}
      </Group>
      {conversions.length === 0 ? (
        <EmptyState order={3} title="No won deals attributed yet">
          When a job is won at a home one of your postcards reached, it appears here with its amount and the
          card that earned it. Mark a lead won on its page in{" "}
          <AnchorLink to="/leads" search={{}}>
            Leads
          </AnchorLink>
          , or let your CRM report won deals: Zapier's Record Won Deal, HubSpot's connection (a deal moved to
          Closed won) or your developer through the API. An event your CRM sends to start automations, even
          one named deal.won, is not counted as revenue.
        </EmptyState>
      ) : (
        <>
          <Text size="sm" c="dimmed" mb="xs">
            Only deals won at a home one of your postcards reached in the 180 days before are counted here.
            Deals your CRM reports at other homes (or before a card arrived) make the home a customer, so it
            gets no more cards, but are not credited to the mail.
          </Text>
          <ScrollTable label="Won deals attributed table" minWidth={960}>
            <Table striped verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Closed</Table.Th>
                  <Table.Th data-key-column>Customer</Table.Th>
                  <Table.Th>Deal</Table.Th>
                  <Table.Th>Address</Table.Th>
                  <Table.Th>Amount</Table.Th>
                  <Table.Th>Automation or campaign</Table.Th>
                  <Table.Th>How it was matched</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                <StagedRows items={conversions}>
                  {(conversion) => (
                    <Table.Tr key={conversion.id}>
                      <Table.Td>{formatCalendarDay(conversion.close_date)}</Table.Td>
                      <Table.Th scope="row" fw={500} data-key-column>
                        {customerOf(conversion)}
                      </Table.Th>
                      <Table.Td>
                        <Text span size="sm" c="dimmed">
                          {crmDealOf(conversion)}
                        </Text>
                      </Table.Td>
                      <Table.Td>{conversion.address}</Table.Td>
                      <Table.Td>{money(conversion.amount)}</Table.Td>
                      <Table.Td>{conversion.automation_name ?? conversion.campaign_name ?? "—"}</Table.Td>
                      <Table.Td>
                        <Badge variant="light">{attributionWords(conversion.attribution_type)}</Badge>{" "}
                        <Text span size="sm" c="dimmed">
                          {wonDealMatchWords(conversion)}
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  )}
                </StagedRows>
              </Table.Tbody>
            </Table>
          </ScrollTable>
        </>
      )}
    </section>
  );
}
