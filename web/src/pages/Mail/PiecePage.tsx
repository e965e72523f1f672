import {
  Alert,
  Anchor,
  Badge,
  Group,
  Image,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Timeline,
  Title,
} from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { getRouteApi } from "@tanstack/react-router";
import { attributionWords } from "../../api/leads.ts";
import { PIECE_STATUS, type Piece, type PieceStatusTone, pieceQuery, stepLabel } from "../../api/mail.ts";
import { PieceSafetyActions } from "../../modules/mail-safety/PieceSafetyActions.tsx";
import { exactMoney, formatDate, readableReason } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { LoadError, Loading, PageHeader } from "../../ui/states.tsx";
import { PieceStatusBadge, TONE_COLORS } from "./PieceStatusBadge.tsx";

const route = getRouteApi("/signed-in/mail/$pieceId");

export function PiecePage() {
  const { pieceId } = route.useParams();
  const piece = useQuery(pieceQuery(pieceId));
  if (piece.isPending) return <Loading label="Loading the postcard" />;
  if (piece.isError) return <LoadError error={piece.error} retry={() => piece.refetch()} />;
  return <PieceDetails piece={piece.data} />;
}

/**
 * The print provider in a contractor's words: the local provider only writes print files to the
 * server's outbox (nothing is mailed); Lob's own status words follow its name.
 */
function printerLabel(provider: string, status: string | null): string {
  if (provider === "local") return "Test printer (no real mail is sent)";
  const name = provider === "lob" ? "Lob" : provider;
  return status ? `${name} (${status.replaceAll("_", " ")})` : name;
}

/**
 * An automation's card belongs to a campaign named "automation (record id)": the id of the CRM
 * record (the event's dedup id) that triggered it, shown under its own label.
 */
function crmRecordOf(piece: Piece): string | undefined {
  const prefix = piece.automation_name ? `${piece.automation_name} (` : undefined;
  if (!prefix || !piece.campaign_name.startsWith(prefix) || !piece.campaign_name.endsWith(")"))
    return undefined;
  return piece.campaign_name.slice(prefix.length, -1) || undefined;
}

/** What the reason under a piece's status explains (only waiting and stopped pieces carry one). */
const REASON_TITLES: Record<PieceStatusTone, string> = {
  progress: "About this card",
  waiting: "Why this card is waiting",
  done: "About this card",
  stopped: "Why this card stopped",
};

function PieceDetails({ piece }: { piece: Piece }) {
  const crmRecord = crmRecordOf(piece);
  const { tone } = PIECE_STATUS[piece.status];
  return (
    <>
      <AnchorLink to="/mail" search={{}} size="sm">
        ← All mail
      </AnchorLink>
      <PageHeader
        title={`Postcard to ${piece.recipient_name ?? "Current resident"}`}
        description={piece.address}
        actions={<PieceStatusBadge status={piece.status} size="lg" />}
      />
      {piece.status_reason && (
        <Alert mb="lg" color={TONE_COLORS[tone]} title={REASON_TITLES[tone]}>
          {readableReason(piece.status_reason)}
        </Alert>
      )}
      <PieceSafetyActions piece={piece} />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" mb="lg">
        <Paper withBorder p="md" radius="md">
          <Title order={2} size="h4" mb="sm">
            Front
          </Title>
          <Image src={piece.front_url} alt={`Front of the postcard to ${piece.address}`} radius="sm" />
        </Paper>
        <Paper withBorder p="md" radius="md">
          <Title order={2} size="h4" mb="sm">
            Back
          </Title>
          <Image src={piece.back_url} alt={`Back of the postcard to ${piece.address}`} radius="sm" />
        </Paper>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" mb="lg">
        <Paper withBorder p="md" radius="md">
          <Title order={2} size="h4" mb="sm">
            Details
          </Title>
          <Stack gap={6}>
            <Text size="sm">
              <b>Automation:</b> {piece.automation_name ?? "—"}
            </Text>
            {crmRecord !== undefined ? (
              <Text size="sm">
                <b>CRM record:</b> {crmRecord}
              </Text>
            ) : (
              piece.campaign_name !== piece.automation_name && (
                <Text size="sm">
                  <b>Campaign:</b> {piece.campaign_name}
                </Text>
              )
            )}
            <Text size="sm">
              <b>Created:</b> {formatDate(piece.created_at)}
            </Text>
            <Text size="sm">
              <b>Mailed:</b> {formatDate(piece.mailed_at)}
            </Text>
            {piece.provider && (
              <Text size="sm">
                <b>Printer:</b> {printerLabel(piece.provider, piece.provider_status)}
              </Text>
            )}
            <Text size="sm">
              <b>Landing page:</b>{" "}
              <Anchor href={piece.landing_url} target="_blank" rel="noopener noreferrer">
                Open this card's landing page
              </Anchor>
            </Text>
          </Stack>
        </Paper>
        <Paper withBorder p="md" radius="md">
          <Title order={2} size="h4" mb="sm">
            Tracking
          </Title>
          <TrackingTimeline timeline={piece.timeline} />
        </Paper>
      </SimpleGrid>
      <LeadsAndConversions piece={piece} />
    </>
  );
}

function TrackingTimeline({ timeline }: { timeline: Piece["timeline"] }) {
  const reached = timeline.filter((step) => step.reached).length;
  return (
    <Timeline active={reached - 1} bulletSize={16} lineWidth={2} aria-label="Tracking timeline">
      {timeline.map((step) => (
        <Timeline.Item
          key={step.step}
          title={
            <Group gap="xs">
              <Text size="sm" fw={600}>
                {stepLabel(step.step)}
              </Text>
              {step.estimated && (
                <Badge size="sm" variant="outline" color="gray.8">
                  estimated
                </Badge>
              )}
            </Group>
          }
        >
          <Text size="xs" c={step.reached ? undefined : "dimmed"}>
            {step.at ? formatDate(step.at) : step.reached ? "Reached" : "Not yet"}
          </Text>
          {step.detail && (
            <Text size="xs" c="dimmed">
              {step.detail}
            </Text>
          )}
        </Timeline.Item>
      ))}
    </Timeline>
  );
}

function LeadsAndConversions({ piece }: { piece: Piece }) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="sm">
          Leads from this card
        </Title>
        {piece.leads.length === 0 ? (
          <Text size="sm" c="dimmed">
            Nobody has answered this card yet.
          </Text>
        ) : (
          <ScrollTable label="Leads from this card" minWidth={360}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Contact</Table.Th>
                  <Table.Th>Received</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {piece.leads.map((lead) => (
                  <Table.Tr key={lead.id}>
                    <Table.Td>
                      <AnchorLink to="/leads/$leadId" params={{ leadId: lead.id }}>
                        {lead.name || "No name given"}
                      </AnchorLink>
                    </Table.Td>
                    <Table.Td>{[lead.email, lead.phone].filter(Boolean).join(" · ") || "—"}</Table.Td>
                    <Table.Td>{formatDate(lead.received_at)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}
      </Paper>
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="sm">
          Won deals from this card
        </Title>
        {piece.conversions.length === 0 ? (
          <Text size="sm" c="dimmed">
            No won deal is attributed to this card yet.
          </Text>
        ) : (
          <ScrollTable label="Won deals from this card" minWidth={360}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Deal</Table.Th>
                  <Table.Th>Amount</Table.Th>
                  <Table.Th>Closed</Table.Th>
                  <Table.Th>How it was matched</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {piece.conversions.map((conversion) => (
                  <Table.Tr key={conversion.id}>
                    <Table.Td>{conversion.deal_name ?? conversion.deal_id ?? "—"}</Table.Td>
                    <Table.Td>{exactMoney(conversion.amount)}</Table.Td>
                    <Table.Td>{conversion.close_date ?? "—"}</Table.Td>
                    <Table.Td>
                      {attributionWords(conversion.attribution_type)} ({conversion.match_confidence} match)
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}
      </Paper>
    </SimpleGrid>
  );
}
