import { Badge, Group, NativeSelect, Stack, Table, Text, VisuallyHidden } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { getRouteApi } from "@tanstack/react-router";
import {
  attributionWords,
  type LeadDelivery,
  type LeadSource,
  type LeadSummary,
  leadsQuery,
  SOURCE_LABELS,
} from "../../api/leads.ts";
import { formatDateTime } from "../../ui/format.ts";
import { KeysetPager, useKeysetPages } from "../../ui/KeysetPager.tsx";
import { AnchorLink, ButtonLink } from "../../ui/links.tsx";
import { usePhoneWidth } from "../../ui/phone-width.ts";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { StagedRows } from "../../ui/staged-rows.tsx";
import { EmptyState, LoadError, Loading, PageHeader } from "../../ui/states.tsx";

const route = getRouteApi("/signed-in/leads");

const DELIVERY_COLORS: Record<LeadDelivery["state"], string> = {
  delivered: "green.9",
  failed: "red.9",
  pending: "gray.8",
};

/** One subscription's delivery of a lead, in a word and its target. */
export function DeliveryBadge({ delivery }: { delivery: LeadDelivery }) {
  return (
    <Badge variant="outline" color={DELIVERY_COLORS[delivery.state]} title={delivery.target}>
      {delivery.state}
      {delivery.status_code ? ` ${delivery.status_code}` : ""}
    </Badge>
  );
}

export function LeadsPage() {
  const { source } = route.useSearch();
  const navigate = route.useNavigate();
  return (
    <>
      <PageHeader title="Leads" description="People who answered a postcard, newest first." />
      <Group mb="md" role="search" aria-label="Filter leads">
        <NativeSelect
          label="Source"
          data={[
            { value: "", label: "All sources" },
            { value: "landing_page", label: SOURCE_LABELS.landing_page },
            { value: "crm_sync", label: SOURCE_LABELS.crm_sync },
          ]}
          value={source ?? ""}
          onChange={(event) =>
            navigate({
              search: { source: (event.currentTarget.value || undefined) as LeadSource | undefined },
              replace: true,
            })
          }
          w={{ base: "100%", sm: 220 }}
        />
      </Group>
      <LeadList key={source ?? ""} source={source} />
    </>
  );
}

/** A lead no member has opened yet (Overview counts them); gone once someone opens it. */
function NewLeadBadge() {
  return (
    <Badge size="sm" variant="filled">
      New<VisuallyHidden>, not opened yet</VisuallyHidden>
    </Badge>
  );
}

/**
 * A phone shows the Name column first: how to reach the lead, the home and when it came sit under the
 * name there, and their own columns are not shown (they repeated the contact beside it and pushed the
 * address, a roofer's first fact, out of sight).
 */
function PhoneLeadFacts({ lead }: { lead: LeadSummary }) {
  return (
    <Stack gap={0} maw={200}>
      {[lead.email, lead.phone, lead.address, formatDateTime(lead.received_at)]
        .filter(Boolean)
        .map((fact) => (
          <Text key={fact} size="xs" c={fact === lead.address ? undefined : "dimmed"}>
            {fact}
          </Text>
        ))}
    </Stack>
  );
}

function LeadList({ source }: { source?: LeadSource }) {
  const pages = useKeysetPages();
  const leads = useQuery(leadsQuery(source, pages.cursor));
  const phone = usePhoneWidth();
  if (leads.isPending) return <Loading label="Loading your leads" />;
  if (leads.isError) return <LoadError error={leads.error} retry={() => leads.refetch()} />;
  if (leads.data.leads.length === 0 && pages.number === 1) {
    return (
      <EmptyState
        title={source ? "No leads from this source yet" : "No leads yet"}
        action={
          <ButtonLink to="/developers" search={{ tab: "webhooks" }} variant="light">
            Set up lead delivery to your CRM
          </ButtonLink>
        }
      >
        A lead appears here when someone answers a postcard on its landing page, or when your CRM reports one.
      </EmptyState>
    );
  }
  // Without lead delivery to a CRM set up, a column of "No webhook" on every row only said a
  // developer's word to a contractor: it shows once a lead on the page was sent somewhere.
  const sentToCrm = leads.data.leads.some((lead) => lead.deliveries.length > 0);
  return (
    <>
      <ScrollTable label="Leads" minWidth={phone ? 560 : 900}>
        <Table striped verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              {/* Wide enough for a first and last name on one line; a long name still wraps. */}
              <Table.Th miw={150}>Name</Table.Th>
              {!phone && <Table.Th miw={220}>Contact</Table.Th>}
              {!phone && <Table.Th>Address</Table.Th>}
              <Table.Th miw={120}>Postcard</Table.Th>
              <Table.Th>Source</Table.Th>
              <Table.Th>How it came</Table.Th>
              {!phone && <Table.Th>Received</Table.Th>}
              {sentToCrm && <Table.Th>Sent to your CRM</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            <StagedRows items={leads.data.leads}>
              {(lead) => (
                <Table.Tr key={lead.id}>
                  {/* A name typed without spaces breaks where it must instead of widening the table. */}
                  <Table.Td style={{ overflowWrap: "anywhere" }}>
                    {/* The badge wraps under a long name flush left, not indented by a margin. */}
                    <Group gap={6} wrap="wrap">
                      <AnchorLink to="/leads/$leadId" params={{ leadId: lead.id }}>
                        {lead.name || "No name given"}
                      </AnchorLink>
                      {lead.unopened && <NewLeadBadge />}
                      {(lead.won_on || lead.card_won) && (
                        <Badge size="sm" color="green" variant="light">
                          Won
                        </Badge>
                      )}
                    </Group>
                    {phone && <PhoneLeadFacts lead={lead} />}
                  </Table.Td>
                  {/* A long email breaks where it must instead of squeezing every other column. */}
                  {!phone && (
                    <Table.Td maw={260} style={{ overflowWrap: "anywhere" }}>
                      <Stack gap={0}>
                        <Text size="sm">{lead.email || "—"}</Text>
                        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
                          {lead.phone}
                        </Text>
                      </Stack>
                    </Table.Td>
                  )}
                  {!phone && <Table.Td>{lead.address || "—"}</Table.Td>}
                  <Table.Td>
                    {lead.piece_id ? (
                      <AnchorLink to="/mail/$pieceId" params={{ pieceId: lead.piece_id }}>
                        {lead.automation_name ?? lead.campaign_name ?? "Open the postcard"}
                      </AnchorLink>
                    ) : (
                      (lead.automation_name ?? lead.campaign_name ?? "—")
                    )}
                  </Table.Td>
                  <Table.Td>{SOURCE_LABELS[lead.source]}</Table.Td>
                  <Table.Td>{attributionWords(lead.attribution_type)}</Table.Td>
                  {!phone && <Table.Td>{formatDateTime(lead.received_at)}</Table.Td>}
                  {sentToCrm && (
                    <Table.Td>
                      {lead.deliveries.length === 0 ? (
                        <Text size="sm" c="dimmed">
                          Not sent
                        </Text>
                      ) : (
                        <Group gap={4}>
                          {lead.deliveries.map((delivery) => (
                            <DeliveryBadge key={delivery.subscription_id} delivery={delivery} />
                          ))}
                        </Group>
                      )}
                    </Table.Td>
                  )}
                </Table.Tr>
              )}
            </StagedRows>
          </Table.Tbody>
        </Table>
      </ScrollTable>
      <KeysetPager pages={pages} next={leads.data.next_cursor} />
    </>
  );
}
