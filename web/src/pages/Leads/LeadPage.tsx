import { Anchor, Box, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { getRouteApi } from "@tanstack/react-router";
import { attributionWords, type Lead, leadQuery, SOURCE_LABELS } from "../../api/leads.ts";
import { DetailCard, DetailField } from "../../ui/DetailCard.tsx";
import { formatDateTime, telHref } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { LoadError, Loading, PageHeader } from "../../ui/states.tsx";
import { DeliveryBadge } from "./LeadsPage.tsx";
import { WonJobCard } from "./WonJobCard.tsx";

const route = getRouteApi("/signed-in/leads/$leadId");

export function LeadPage() {
  const { leadId } = route.useParams();
  const lead = useQuery(leadQuery(leadId));
  if (lead.isPending) return <Loading label="Loading the lead" />;
  if (lead.isError) return <LoadError error={lead.error} retry={() => lead.refetch()} />;
  return <LeadDetails lead={lead.data} />;
}

function LeadDetails({ lead }: { lead: Lead }) {
  return (
    <>
      <AnchorLink to="/leads" search={{}} size="sm">
        ← All leads
      </AnchorLink>
      <PageHeader
        title={lead.name || "No name given"}
        description={`${SOURCE_LABELS[lead.source]} lead received ${formatDateTime(lead.received_at)}`}
      />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" mb="lg">
        <DetailCard title="Contact">
          <Stack gap={6}>
            <DetailField label="Email">
              {lead.email ? <Anchor href={`mailto:${lead.email}`}>{lead.email}</Anchor> : "—"}
            </DetailField>
            <DetailField label="Phone">
              {lead.phone ? <Anchor href={telHref(lead.phone)}>{lead.phone}</Anchor> : "—"}
            </DetailField>
            <DetailField label="Address">{lead.address || "—"}</DetailField>
            <DetailField label="How it came">{attributionWords(lead.attribution_type)}</DetailField>
            <DetailField label="Postcard">
              {lead.piece_id ? (
                <AnchorLink to="/mail/$pieceId" params={{ pieceId: lead.piece_id }}>
                  {lead.automation_name ?? lead.campaign_name ?? "Open the postcard"}
                </AnchorLink>
              ) : (
                "—"
              )}
            </DetailField>
            {lead.crm_record_id && <DetailField label="CRM record">{lead.crm_record_id}</DetailField>}
          </Stack>
        </DetailCard>
        <DetailCard title="Answers">
          {lead.message && <DetailField label="Message">{lead.message}</DetailField>}
          {lead.answers.length === 0 && !lead.message ? (
            <Text size="sm" c="dimmed">
              This lead left no answers.
            </Text>
          ) : (
            <Stack gap={6} mt={lead.message ? 6 : 0}>
              {lead.answers.map((answer) => (
                <DetailField key={answer.field_id} label={answer.label}>
                  {answer.value.join(", ") || "—"}
                </DetailField>
              ))}
            </Stack>
          )}
        </DetailCard>
      </SimpleGrid>
      <Box mb="lg">
        <WonJobCard lead={lead} />
      </Box>
      <DetailCard title="Sent to your CRM">
        {lead.deliveries.length === 0 && lead.source === "crm_sync" ? (
          <Text size="sm" c="dimmed">
            This lead came from your CRM, so it is not sent back to it.
          </Text>
        ) : lead.deliveries.length === 0 ? (
          <Text size="sm" c="dimmed">
            This lead was not sent to your CRM: no lead delivery was set up when it came in.{" "}
            <AnchorLink to="/developers" search={{ tab: "webhooks" }}>
              Set up lead delivery
            </AnchorLink>{" "}
            (a webhook your CRM or Zapier listens on) to send the next ones.
          </Text>
        ) : (
          <ScrollTable label="Sent to your CRM" minWidth={640}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Webhook</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Attempts</Table.Th>
                  <Table.Th>Last attempt</Table.Th>
                  <Table.Th>Next retry</Table.Th>
                  <Table.Th>Error</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {lead.deliveries.map((delivery) => (
                  <Table.Tr key={delivery.subscription_id}>
                    <Table.Td>{delivery.target}</Table.Td>
                    <Table.Td>
                      <DeliveryBadge delivery={delivery} />
                    </Table.Td>
                    <Table.Td>{delivery.attempts}</Table.Td>
                    <Table.Td>{formatDateTime(delivery.last_attempt_at)}</Table.Td>
                    <Table.Td>{formatDateTime(delivery.next_retry_at)}</Table.Td>
                    <Table.Td>{delivery.error ?? "—"}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}
      </DetailCard>
    </>
  );
}
