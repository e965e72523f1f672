import { Box, Button, Group, Image, NativeSelect, Table, Text, TextInput } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { getRouteApi } from "@tanstack/react-router";
import { type RefObject, useRef } from "react";
import { automationListQuery } from "../../api/automations.ts";
import {
  PIECE_STATUS,
  PIECE_STATUSES,
  type PieceFilters,
  type PieceSummary,
  piecesQuery,
  REACTIVATION_MAILINGS,
  ROWS_ON_A_LAPTOP,
} from "../../api/mail.ts";
import { formatDateTime, readableReason, recipientOf } from "../../ui/format.ts";
import { KeysetPager, useKeysetPages } from "../../ui/KeysetPager.tsx";
import { AnchorLink, ButtonLink } from "../../ui/links.tsx";
import { usePhoneWidth } from "../../ui/phone-width.ts";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { useStagedRows } from "../../ui/staged-rows.tsx";
import { EmptyState, LoadError, Loading, PageHeader } from "../../ui/states.tsx";
import { mailedOrDueWords } from "./follow-up-due.ts";
import { PieceStatusBadge } from "./PieceStatusBadge.tsx";

const route = getRouteApi("/signed-in/mail");

export type MailFilters = Omit<PieceFilters, "cursor">;

export function MailPage() {
  const filters = route.useSearch();
  const navigate = route.useNavigate();
  const setFilter = (change: Partial<MailFilters>) =>
    navigate({ search: (previous) => ({ ...previous, ...change }), replace: true });
  const filtered = Boolean(
    filters.automation_id || filters.mailing || filters.status || filters.from || filters.to,
  );
  // Cleared, the button that did it goes: the focus goes to the first filter, not <body>.
  const firstFilter = useRef<HTMLSelectElement>(null);
  const clearFilters = () => {
    void navigate({ search: {}, replace: true }).then(() => firstFilter.current?.focus());
  };

  return (
    <>
      <PageHeader title="Mail" description="Every postcard your automations send, newest first." />
      <MailFilterBar
        filters={filters}
        onChange={setFilter}
        onClear={filtered ? clearFilters : undefined}
        firstFilter={firstFilter}
      />
      {/* A new filter starts again at the newest page. */}
      <PieceList
        key={JSON.stringify(filters)}
        filters={filters}
        onClear={filtered ? clearFilters : undefined}
      />
    </>
  );
}

/**
 * On a phone the Automation filter has a line of its own (an automation's name, or "Reactivation
 * mailings", is cut at half a line) and the others two a line, so the list starts on the first screen.
 */
const HALF_LINE = "calc(50% - var(--mantine-spacing-sm) / 2)";

function MailFilterBar({
  filters,
  onChange,
  onClear,
  firstFilter,
}: {
  filters: MailFilters;
  onChange: (change: Partial<MailFilters>) => void;
  /** Shown while a filter is set. */
  onClear: (() => void) | undefined;
  firstFilter: RefObject<HTMLSelectElement | null>;
}) {
  const automations = useQuery(automationListQuery());
  const automationOptions = [
    { value: "", label: "All automations" },
    ...(automations.data?.automations ?? []).map((item) => ({ value: item.id, label: item.name })),
    { value: REACTIVATION_MAILINGS, label: "Reactivation mailings" },
  ];
  const statusOptions = [
    { value: "", label: "All statuses" },
    ...PIECE_STATUSES.map((status) => ({ value: status, label: PIECE_STATUS[status].label })),
  ];
  return (
    <Group mb="md" align="flex-end" gap="sm" wrap="wrap" role="search" aria-label="Filter postcards">
      <NativeSelect
        ref={firstFilter}
        label="Automation"
        data={automationOptions}
        value={filters.mailing ?? filters.automation_id ?? ""}
        onChange={(event) => onChange(automationFilter(event.currentTarget.value))}
        w={{ base: "100%", sm: 220 }}
      />
      <NativeSelect
        label="Status"
        data={statusOptions}
        value={filters.status ?? ""}
        onChange={(event) =>
          onChange({ status: (event.currentTarget.value || undefined) as MailFilters["status"] })
        }
        w={{ base: HALF_LINE, sm: 180 }}
      />
      <TextInput
        type="date"
        label="Created from"
        value={filters.from ?? ""}
        onChange={(event) => onChange({ from: event.currentTarget.value || undefined })}
        w={{ base: HALF_LINE, sm: 170 }}
      />
      <TextInput
        type="date"
        label="Created to"
        value={filters.to ?? ""}
        onChange={(event) => onChange({ to: event.currentTarget.value || undefined })}
        // Dates in the URL are ISO days: compared as text, they compare as days.
        error={
          filters.from && filters.to && filters.to < filters.from
            ? "Pick a day on or after Created from"
            : undefined
        }
        w={{ base: HALF_LINE, sm: 170 }}
      />
      {onClear && (
        <Button variant="subtle" onClick={onClear}>
          Clear filters
        </Button>
      )}
    </Group>
  );
}

/** The Automation filter's choice as the list's search: an automation, the reactivation mailings, or all. */
function automationFilter(value: string): Pick<MailFilters, "automation_id" | "mailing"> {
  if (value === REACTIVATION_MAILINGS) return { automation_id: undefined, mailing: REACTIVATION_MAILINGS };
  return { automation_id: value || undefined, mailing: undefined };
}

function PieceList({ filters, onClear }: { filters: MailFilters; onClear: (() => void) | undefined }) {
  const pages = useKeysetPages();
  const pieces = useQuery(piecesQuery(filters, pages.cursor));
  const phone = usePhoneWidth();

  if (pieces.isPending) return <Loading label="Loading your mail" />;
  if (pieces.isError) return <LoadError error={pieces.error} retry={() => pieces.refetch()} />;
  if (pieces.data.pieces.length === 0 && pages.number === 1) {
    return onClear ? (
      <EmptyState
        title="No postcards match these filters"
        action={
          <Button variant="light" onClick={onClear}>
            Clear filters
          </Button>
        }
      >
        Choose another automation, status or date range, or clear the filters to see all your mail.
      </EmptyState>
    ) : (
      <EmptyState
        title="No postcards yet"
        action={
          <ButtonLink to="/automations" variant="light">
            Go to Automations
          </ButtonLink>
        }
      >
        A postcard appears here as soon as an enabled automation matches an event from your CRM.
      </EmptyState>
    );
  }
  return (
    <>
      {/* Status comes right after the recipient; a phone shows it, the address and when it is mailed under the
          recipient instead (the Created and Mailed columns sat out of sight behind a sideways scroll). */}
      <ScrollTable label="Postcards" minWidth={phone ? 420 : 860}>
        <Table striped verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Proof</Table.Th>
              <Table.Th>Recipient</Table.Th>
              {!phone && <Table.Th>Status</Table.Th>}
              {!phone && <Table.Th>Address</Table.Th>}
              <Table.Th>Automation</Table.Th>
              {!phone && <Table.Th>Created</Table.Th>}
              {!phone && <Table.Th>Mailed</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <PieceRows pieces={pieces.data.pieces} phone={phone} />
        </Table>
      </ScrollTable>
      <KeysetPager pages={pages} next={pieces.data.next_cursor} />
    </>
  );
}

/** A card's status, and for a card that stopped or waits, why; a follow-up says which it is. */
function StatusWithReason({ piece }: { piece: PieceSummary }) {
  // A scheduled follow-up's reason names it; once stopped, its reason says why: the step is said apart.
  const unnamedFollowUp =
    piece.sequence_step !== null && !(piece.status_reason ?? "").startsWith("Follow-up card");
  return (
    <>
      <PieceStatusBadge status={piece.status} />
      {unnamedFollowUp && (
        <Text size="xs" maw={220}>
          Follow-up card {piece.sequence_step}
        </Text>
      )}
      {piece.status_reason && (
        <Text size="xs" c="dimmed" maw={220}>
          {readableReason(piece.status_reason)}
        </Text>
      )}
      {piece.corrected && (
        <Text size="xs" fw={500} maw={220}>
          Sent again to a corrected address
        </Text>
      )}
    </>
  );
}

/**
 * Fifty rows take a while to render: the first screenful shows (and asks for its thumbnails) first, the
 * rest right after it. Mounted with the page's pieces, so the first render is the first screenful's.
 */
function PieceRows({ pieces, phone }: { pieces: PieceSummary[]; phone: boolean }) {
  const staged = useStagedRows(pieces);
  return (
    <Table.Tbody>
      {staged.map((piece, index) => (
        <Table.Tr key={piece.id}>
          <Table.Td>
            <Image
              src={piece.thumbnail_url}
              alt={`Front of the postcard to ${piece.address}`}
              w={{ base: 56, sm: 72 }}
              h={48}
              fit="contain"
              radius="xs"
              // The first screenful's are asked for at once; Chromium started lazy ones ~0.4 s after the rows showed.
              loading={index < ROWS_ON_A_LAPTOP ? "eager" : "lazy"}
            />
          </Table.Td>
          <Table.Td style={{ overflowWrap: "anywhere" }}>
            <AnchorLink to="/mail/$pieceId" params={{ pieceId: piece.id }}>
              {recipientOf(piece.recipient_name)}
            </AnchorLink>
            {/* A phone shows the first two columns: the address (rows of "Current Resident" are alike without
                it) and the status, whose own columns are hidden there, sit under the name. */}
            {phone && (
              <Box maw={168}>
                <Text size="xs" c="dimmed">
                  {piece.address}
                </Text>
                <StatusWithReason piece={piece} />
                {(piece.mailed_at || (piece.status === "scheduled" && piece.scheduled_for)) && (
                  <Text size="xs">
                    {piece.mailed_at ? "Mailed " : ""}
                    {mailedOrDueWords(piece, piece.first_card_status ?? undefined)}
                  </Text>
                )}
              </Box>
            )}
          </Table.Td>
          {!phone && (
            <Table.Td>
              {/* As wide as the longest badge on one line (a cell ignores min-width; a block in it does not). */}
              <Box miw={168}>
                <StatusWithReason piece={piece} />
              </Box>
            </Table.Td>
          )}
          {!phone && <Table.Td>{piece.address}</Table.Td>}
          <Table.Td>
            {piece.automation_name ?? piece.campaign_name}
            {piece.test_card && (
              <Text size="xs" c="dimmed">
                Test card
              </Text>
            )}
          </Table.Td>
          {!phone && <Table.Td>{formatDateTime(piece.created_at)}</Table.Td>}
          {!phone && <Table.Td>{mailedOrDueWords(piece, piece.first_card_status ?? undefined)}</Table.Td>}
        </Table.Tr>
      ))}
    </Table.Tbody>
  );
}
