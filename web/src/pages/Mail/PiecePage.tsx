import {
  Alert,
  Anchor,
  Box,
  Group,
  Image,
  List,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Timeline,
} from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { getRouteApi } from "@tanstack/react-router";
import { useRef } from "react";
import { attributionWords, matchWords } from "../../api/leads.ts";
import { PIECE_STATUS, type Piece, type PieceStatusTone, pieceQuery, stepLabel } from "../../api/mail.ts";
import { PieceSafetyActions } from "../../modules/mail-safety/PieceSafetyActions.tsx";
import { DetailCard, DetailField } from "../../ui/DetailCard.tsx";
import { useFocusWhenGone } from "../../ui/focus.ts";
import { formatCalendarDay, formatDateTime, money, readableReason, recipientOf } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { LoadError, Loading, PageHeader } from "../../ui/states.tsx";
import { CorrectedAddress } from "./CorrectedAddress.tsx";
import { followUpDue, mailedOrDueWords, sequenceCardDue } from "./follow-up-due.ts";
import { PieceStatusBadge, TONE_COLORS } from "./PieceStatusBadge.tsx";

const route = getRouteApi("/signed-in/mail/$pieceId");

/** The card's page as the server reports it: open (linked, with its closing day), closed, or none yet. */
function LandingPageState({ piece, tone }: { piece: Piece; tone: PieceStatusTone }) {
  if (piece.landing_url) {
    return (
      <>
        <Anchor href={piece.landing_url} target="_blank" rel="noopener noreferrer">
          Open this card's landing page
        </Anchor>
        <Text span size="sm" c="dimmed">
          {" "}
          (open until {formatDateTime(piece.landing_page_closes_at)})
        </Text>
      </>
    );
  }
  if (piece.landing_page_closes_at) return <>Closed on {formatDateTime(piece.landing_page_closes_at)}</>;
  const neverMailed = tone === "stopped" || tone === "compared";
  return <>{neverMailed ? "None: this card was not mailed" : "Opens when the card goes to print"}</>;
}

/** The first card of the piece's sequence, with its status in words. */
function firstCardOf(piece: Piece) {
  const first = piece.sequence.find((card) => card.sequence_step === null);
  return first && { status: first.status, label: PIECE_STATUS[first.status].label };
}

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
  if (piece.test_card) return undefined;
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
  compared: "No card: this home is in the holdout group",
};

function PieceDetails({ piece }: { piece: Piece }) {
  const crmRecord = crmRecordOf(piece);
  const { tone } = PIECE_STATUS[piece.status];
  const heldOut = piece.status === "held_out";
  // Approved or cancelled, the card no longer waits and its buttons (which had the focus) are gone:
  // the heading takes the focus, and the status beside it says what happened.
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusWhenGone(heading, tone === "waiting");
  return (
    <>
      <AnchorLink to="/mail" search={{}} size="sm">
        ← All mail
      </AnchorLink>
      <PageHeader
        headingRef={heading}
        title={`Postcard to ${recipientOf(piece.recipient_name)}`}
        description={piece.address}
        actions={<PieceStatusBadge status={piece.status} size="lg" />}
      />
      {piece.status_reason && (
        <Alert
          mb="lg"
          // A held-out home is the comparison's half, not a card that went wrong: said in gray, not red.
          color={TONE_COLORS[tone]}
          title={REASON_TITLES[tone]}
        >
          {readableReason(piece.status_reason)}
          {piece.status === "undeliverable" && (
            <Text size="sm" mt="xs">
              This card was not printed and costs nothing.
            </Text>
          )}
        </Alert>
      )}
      <CorrectedAddress piece={piece} />
      <PieceSafetyActions piece={piece} />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" mb="lg">
        <DetailCard title="Front">
          <Image src={piece.front_url} alt={`Front of the postcard to ${piece.address}`} radius="sm" />
        </DetailCard>
        <DetailCard title="Back">
          <Image src={piece.back_url} alt={`Back of the postcard to ${piece.address}`} radius="sm" />
        </DetailCard>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg" mb="lg">
        <DetailCard title="Details">
          <Stack gap={6}>
            <DetailField label="Automation">{piece.automation_name ?? "—"}</DetailField>
            {piece.test_card ? (
              <DetailField label="Sent as">A test card, from the automation's builder</DetailField>
            ) : crmRecord !== undefined ? (
              <DetailField label="CRM record">{crmRecord}</DetailField>
            ) : (
              piece.campaign_name !== piece.automation_name && (
                <DetailField label="Campaign">{piece.campaign_name}</DetailField>
              )
            )}
            {piece.sequence_step !== null && (
              <DetailField label="Sequence">
                Follow-up card {piece.sequence_step}
                {piece.status === "scheduled" && piece.scheduled_for
                  ? followUpDue(piece.scheduled_for, firstCardOf(piece))
                  : ""}
              </DetailField>
            )}
            <DetailField label="Created">{formatDateTime(piece.created_at)}</DetailField>
            {piece.approved && (
              <DetailField label="Approved">
                by {piece.approved.by}, {formatDateTime(piece.approved.at)}
              </DetailField>
            )}
            <DetailField label="Mailed">{mailedOrDueWords(piece, firstCardOf(piece)?.status)}</DetailField>
            {piece.provider && (
              <DetailField label="Printer">{printerLabel(piece.provider, piece.provider_status)}</DetailField>
            )}
            <DetailField label="Landing page">
              <LandingPageState piece={piece} tone={tone} />
            </DetailField>
          </Stack>
        </DetailCard>
        <DetailCard title="Tracking">
          <TrackingTimeline timeline={piece.timeline} />
        </DetailCard>
      </SimpleGrid>
      {piece.sequence.length > 0 && <SequenceCards piece={piece} />}
      {heldOut ? <HeldOutHome piece={piece} /> : <LeadsAndConversions piece={piece} />}
    </>
  );
}

/**
 * When a card of a sequence was mailed or is due (about, while the first card has not gone to print);
 * nothing for one stopped or still before print.
 */
function whenMailed(card: Piece["sequence"][number], firstCardStatus: string | undefined): string {
  if (card.mailed_at) return `Mailed ${formatDateTime(card.mailed_at)}`;
  if (card.status === "scheduled" && card.scheduled_for)
    return sequenceCardDue(card.scheduled_for, firstCardStatus);
  return "";
}

/** What each card of one sequence has done or will do ("First card" then "Follow-up card N"), this card unlinked. */
function SequenceCards({ piece }: { piece: Piece }) {
  const firstCardStatus = firstCardOf(piece)?.status;
  return (
    <Box mb="lg">
      <DetailCard title="Cards of this sequence">
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            A follow-up card is mailed on its day after the first card, unless the home answers first.
          </Text>
          {piece.sequence.map((card) => {
            const name = card.sequence_step === null ? "First card" : `Follow-up card ${card.sequence_step}`;
            return (
              <div key={card.id}>
                <Group gap="xs" wrap="wrap">
                  <Text size="sm" fw={600}>
                    {card.id === piece.id ? (
                      `${name} (this card)`
                    ) : (
                      <AnchorLink to="/mail/$pieceId" params={{ pieceId: card.id }}>
                        {name}
                      </AnchorLink>
                    )}
                  </Text>
                  <PieceStatusBadge status={card.status} size="sm" />
                  <Text size="sm" c="dimmed">
                    {whenMailed(card, firstCardStatus)}
                  </Text>
                </Group>
                {/* A scheduled card's reason is the sentence above; a card on its way has none. */}
                {card.status_reason &&
                  card.status !== "scheduled" &&
                  PIECE_STATUS[card.status].tone !== "progress" && (
                    <Text size="sm">{readableReason(card.status_reason)}</Text>
                  )}
              </div>
            );
          })}
        </Stack>
      </DetailCard>
    </Box>
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
            <Text size="sm" fw={600}>
              {stepLabel(step.step)}
            </Text>
          }
        >
          {/* A step passed without its own record (the local printer mails at once) takes the next one's time:
              "By" that time, not a "DATE ESTIMATED" badge a contractor could not read. */}
          <Text size="xs" c={step.reached ? undefined : "dimmed"}>
            {step.at
              ? `${step.estimated ? "By " : ""}${formatDateTime(step.at)}`
              : step.reached
                ? "Reached"
                : "Not yet"}
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

/**
 * A held-out home's answers and deals are no card's: they count in Revenue's comparison instead. A
 * deal won there since is listed as what it is, a home that bought without a card.
 */
function HeldOutHome({ piece }: { piece: Piece }) {
  const deals = piece.held_out_deals;
  return (
    <DetailCard title="Leads and won deals">
      <Stack gap={6}>
        <Text size="sm">
          No card was mailed to this home, so no lead or deal is credited to one. Won deals at held-out homes
          count in{" "}
          <AnchorLink to="/revenue" search={{}}>
            Revenue
          </AnchorLink>
          's comparison of the homes that got the card with those that did not.
        </Text>
        {deals.length > 0 && (
          <>
            <Text size="sm" fw={600}>
              {deals.length === 1
                ? "This home bought without a card:"
                : `This home bought ${deals.length} times without a card:`}
            </Text>
            <List size="sm">
              {deals.map((deal, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the deals of one answer, newest first, never reordered
                <List.Item key={index}>
                  {money(deal.amount)}, won on {formatCalendarDay(deal.close_date)}
                </List.Item>
              ))}
            </List>
          </>
        )}
      </Stack>
    </DetailCard>
  );
}

function LeadsAndConversions({ piece }: { piece: Piece }) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
      <DetailCard title="Leads from this card">
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
                    <Table.Td>{formatDateTime(lead.received_at)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}
      </DetailCard>
      <DetailCard title="Won deals from this card">
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
                    <Table.Td>{money(conversion.amount)}</Table.Td>
                    <Table.Td>{formatCalendarDay(conversion.close_date)}</Table.Td>
                    <Table.Td>
                      {attributionWords(conversion.attribution_type)} (
                      {matchWords(conversion.match_confidence)})
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}
      </DetailCard>
    </SimpleGrid>
  );
}
