import {
  Alert,
  Button,
  Checkbox,
  Group,
  Image,
  Kbd,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { type RefObject, useCallback, useEffect, useRef, useState } from "react";
import {
  type ApprovalCard,
  type Approvals,
  approvalsQuery,
  type MailSafety,
  mailSafetyQuery,
  useApprovePieces,
  useCancelPieces,
} from "../../api/mail-safety.ts";
import { organizationQuery } from "../../api/organization.ts";
import { ApproveCardsDialog } from "../../modules/mail-safety/ApproveCardsDialog.tsx";
import { CancelCardsDialog } from "../../modules/mail-safety/CancelCardsDialog.tsx";
import { cardsWaitingForCap, usedUp } from "../../modules/mail-safety/cap-countdown.ts";
import { focusIsLost, useFocusWhenGone } from "../../ui/focus.ts";
import { formatDateTime, recipientOf } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { usePhoneWidth } from "../../ui/phone-width.ts";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { useStagedRows } from "../../ui/staged-rows.tsx";
import { EmptyState, LoadError, Loading, PageHeader } from "../../ui/states.tsx";
import { HEADER_HEIGHT } from "../../ui/theme.ts";
import { ActionStatus, approvedWords, cancelledWords, changedWords, type Said } from "./ActionStatus.tsx";

/**
 * A tall screen's first screenful of cards (one and a bit at a laptop's width): rendered first, their
 * sides asked for at once. The rest render right after and load lazily. Six cards in the first render
 * held a first visit's main thread ~0.2 s on a 2-core machine, and lazy sides were asked for only after
 * the layout that followed it.
 */
const CARDS_IN_FIRST_RENDER = 3;

/** Typing in a text field must never approve or cancel a card. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return (
    target instanceof HTMLInputElement && !["checkbox", "radio", "button", "submit"].includes(target.type)
  );
}

/**
 * What an empty queue means: the cards of the automations asking for approval (named when one) will
 * wait here; when none asks, where to turn it on.
 */
function nothingWaitingWords(asking: Approvals["automations_asking_approval"]): string {
  const nothing = "No card is waiting for approval.";
  if (asking.length === 0)
    return `${nothing} Turn on "Approve each card before print" in an automation's Safety section to review its cards here first.`;
  const whose =
    asking.length === 1 ? `“${asking[0]!.name}”` : `your ${asking.length} automations that ask for approval`;
  return `${nothing} New cards from ${whose} will wait here for you to approve or cancel them.`;
}

/** The first day of the month after `month` ("2026-12-01"), as the cap's words say it: "Jan 1". */
const nextMonthDay = (month: string) => {
  const first = new Date(`${month}T00:00:00Z`);
  return new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 1)).toLocaleDateString("en-US", {
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  });
};

/** Said above the queue when approving would not print: which cap is used up, and until when. */
function CapReachedNotice({ safety, cards }: { safety: MailSafety; cards: ApprovalCard[] }) {
  const orgReached = usedUp(safety.organization);
  const automations = orgReached
    ? []
    : safety.automations.filter(
        (automation) =>
          cards.some((card) => card.automation_id === automation.automation_id) &&
          (automation.paused_by_cap || usedUp(automation)),
      );
  if (!orgReached && automations.length === 0) return null;
  const names = automations.map((automation) => automation.name);
  const whose = orgReached
    ? "Your organization's monthly cap is reached"
    : names.length === 1
      ? `The monthly cap of ${names[0]} is reached`
      : `The monthly caps of ${names.slice(0, -1).join(", ")} and ${names.at(-1)} are reached`;
  return (
    <Alert color="orange" title={whose} mb="md">
      <Text size="sm">
        {orgReached ? "Cards" : names.length === 1 ? "Its cards" : "Their cards"} you approve now wait: they
        go out on {nextMonthDay(safety.month)}, or as soon as an owner raises the cap.{" "}
        <AnchorLink to="/settings" search={{ tab: "safety" }} size="sm">
          See the caps
        </AnchorLink>
      </Text>
    </Alert>
  );
}

export function ApprovalsPage() {
  const approvals = useQuery(approvalsQuery());
  // The layout's badge reads the same query: no request of its own.
  const safety = useQuery(mailSafetyQuery());
  // What the last approve or cancel did, said in a line of the page above the queue rather than in a
  // toast, which stood over the next card's proof. Kept here: it stays when the queue empties.
  const [said, setSaid] = useState<Said[]>([]);
  const statusLine = useRef<HTMLDivElement>(null);
  // The last card approved or cancelled took the focus with it (the queue is gone): the empty
  // state's heading takes it, so a screen reader says where the person is and Tab goes on from there.
  const emptyHeading = useRef<HTMLHeadingElement>(null);
  useFocusWhenGone(emptyHeading, approvals.data ? approvals.data.pieces.length > 0 : undefined);
  return (
    <>
      <PageHeader
        title="Approvals"
        description="Cards of automations that ask for approval wait here. Approve them to print, or cancel them."
      />
      <ActionStatus said={said} ref={statusLine} />
      {safety.data && approvals.isSuccess && (
        <CapReachedNotice safety={safety.data} cards={approvals.data.pieces} />
      )}
      {approvals.isPending && <Loading label="Loading the cards to approve" />}
      {approvals.isError && <LoadError error={approvals.error} retry={() => approvals.refetch()} />}
      {approvals.isSuccess &&
        (approvals.data.pieces.length === 0 ? (
          <EmptyState title="Nothing to approve" headingRef={emptyHeading}>
            {nothingWaitingWords(approvals.data.automations_asking_approval)}
          </EmptyState>
        ) : (
          <ApprovalQueue
            cards={approvals.data.pieces}
            total={approvals.data.total}
            onDone={setSaid}
            statusLine={statusLine}
          />
        ))}
    </>
  );
}

/**
 * The card that took the place of one approved or cancelled shows from its top: where the view has
 * scrolled past it (a phone, whose Approve sits under the proof) or not reached it (a key pressed on
 * a card out of sight), its top comes to just under the fixed header, so its name and proof show
 * before its buttons. The first card brings the status line above it too. Nothing moves while its
 * top shows.
 */
function showFromTop(card: HTMLElement | null | undefined, index: number, statusLine: HTMLElement | null) {
  const target = index === 0 && statusLine?.firstElementChild ? statusLine : card;
  if (!target) return;
  const below = HEADER_HEIGHT + 8;
  const top = target.getBoundingClientRect().top;
  if (top < below || top > window.innerHeight - below) window.scrollBy({ top: top - below });
}

function ApprovalQueue({
  cards,
  total,
  onDone,
  statusLine,
}: {
  cards: ApprovalCard[];
  total: number;
  /** Says what an approve or cancel did, in the page's status line. */
  onDone: (said: Said[]) => void;
  statusLine: RefObject<HTMLDivElement | null>;
}) {
  const phone = usePhoneWidth();
  const approve = useApprovePieces();
  // Approve selected's dialog shows its own failure: no toast repeats it.
  const approveAsked = useApprovePieces({ quiet: true });
  const cancel = useCancelPieces();
  const safety = useQuery(mailSafetyQuery()).data;
  // Read with the session (the signed-in route's loader): the approve dialog prices the cards with it.
  const costPerCardCents = useQuery(organizationQuery()).data?.cost_per_card_cents ?? null;
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [current, setCurrent] = useState(0);
  const [cardsToCancel, setCardsToCancel] = useState<ApprovalCard[]>([]);
  const [askingToCancel, setAskingToCancel] = useState(false);
  const [cardsToApprove, setCardsToApprove] = useState<ApprovalCard[]>([]);
  // Reckoned as the dialog opens and kept, so its words do not change as the counters are read again.
  const [waitingForCap, setWaitingForCap] = useState(0);
  const [askingToApprove, setAskingToApprove] = useState(false);
  /** A dialog is open: it holds the focus, and the queue's keys rest. */
  const asking = askingToCancel || askingToApprove;
  const rows = useRef<(HTMLElement | null)[]>([]);
  /** What last had the focus in the list: gone with its card, the focus is to be given back. */
  const lastFocused = useRef<Element | null>(null);
  const busy = approve.isPending || approveAsked.isPending || cancel.isPending;

  // Cards approved or cancelled leave the list: keep the selection and the cursor within it.
  useEffect(() => {
    setSelected((previous) => new Set(cards.filter((card) => previous.has(card.id)).map((card) => card.id)));
    setCurrent((index) => Math.min(index, cards.length - 1));
  }, [cards]);

  /**
   * A card approved by its button or its key took the focus with it: the card now in its place (the
   * one above, for the bottom card) takes it. Not while a dialog is open: it holds the focus and
   * gives it back as it closes (`focusHighlightedCard`).
   */
  useEffect(() => {
    if (asking || lastFocused.current?.isConnected !== false || !focusIsLost()) return;
    const index = Math.min(current, cards.length - 1);
    rows.current[index]?.focus({ preventScroll: true });
    showFromTop(rows.current[index], index, statusLine.current);
  }, [cards, current, asking, statusLine]);

  /**
   * What an approval did, for the status line. `safety` is read before the approval: the counters
   * it is judged by are this month's until print.
   */
  const saidOfApproval = (
    shown: ApprovalCard[],
    answer: { piece_ids: string[]; changed_piece_ids: string[] },
  ): Said[] => {
    const said: Said[] = [];
    if (answer.piece_ids.length > 0 || answer.changed_piece_ids.length === 0) {
      const capped = cardsWaitingForCap(
        safety,
        shown.filter((card) => answer.piece_ids.includes(card.id)),
      );
      said.push(
        approvedWords(answer.piece_ids.length, capped, safety ? nextMonthDay(safety.month) : undefined),
      );
    }
    if (answer.changed_piece_ids.length > 0) said.push(changedWords(answer.changed_piece_ids.length));
    return said;
  };

  /**
   * A card's own Approve (and `a`): one step, its proofs beside it. A failure shows in the app's
   * toast. One at a time: `a` pressed twice approves once.
   */
  const approveCards = useSingleFlight(async (ids: string[]) => {
    if (ids.length === 0) return;
    const shown = cards.filter((card) => ids.includes(card.id));
    const answer = await approve.mutateAsync(shown).catch(() => undefined);
    if (!answer) return;
    onDone(saidOfApproval(shown, answer));
  });

  // Approving spends money: Approve selected, whose cards may be out of sight, asks first.
  const askToApprove = (chosenCards: ApprovalCard[]) => {
    if (chosenCards.length === 0) return;
    setCardsToApprove(chosenCards);
    setWaitingForCap(cardsWaitingForCap(safety, chosenCards));
    setAskingToApprove(true);
  };

  /** The dialog waits for it, shows its failure and closes itself once it is done. */
  const approveAskedCards = async () => {
    const answer = await approveAsked.mutateAsync(cardsToApprove);
    onDone(saidOfApproval(cardsToApprove, answer));
  };

  // Cancelling cannot be undone: a card's Cancel (and its key) and Cancel selected ask first.
  const askToCancel = useCallback((chosenCards: ApprovalCard[]) => {
    setCardsToCancel(chosenCards);
    setAskingToCancel(true);
  }, []);

  /** The dialog waits for it, shows its failure and closes itself once it is done. */
  const cancelAskedCards = async () => {
    const answer = await cancel.mutateAsync(cardsToCancel.map((card) => card.id));
    onDone([cancelledWords(answer.piece_ids.length)]);
  };

  /**
   * A cancelled card's row is gone with the focus it had: the card now highlighted takes it. Read
   * from the rows, not this render's `current`: the dialog calls this from the render that closed it.
   */
  const focusHighlightedCard = () => {
    const index = rows.current.findIndex((row) => row?.getAttribute("aria-current") === "true");
    if (index < 0) return;
    rows.current[index]?.focus({ preventScroll: true });
    showFromTop(rows.current[index], index, statusLine.current);
  };

  const toggle = useCallback((id: string) => {
    setSelected((previous) => {
      const next = new Set(previous);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);

  const move = useCallback(
    (step: number) => {
      setCurrent((index) => {
        const next = Math.max(0, Math.min(cards.length - 1, index + step));
        rows.current[next]?.focus();
        return next;
      });
    },
    [cards.length],
  );

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target) || busy) return;
      if (asking) return;
      const card = cards[current];
      const keys: Record<string, () => void> = {
        j: () => move(1),
        k: () => move(-1),
        x: () => card && toggle(card.id),
        a: () => card && void approveCards([card.id]),
        c: () => card && askToCancel([card]),
      };
      const handler = keys[event.key];
      if (!handler) return;
      event.preventDefault();
      handler();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [cards, current, busy, asking, move, toggle, approveCards, askToCancel]);

  // A hundred cards take a while to render: the first screenful shows first, the rest right after it.
  const staged = useStagedRows(cards, CARDS_IN_FIRST_RENDER);
  const allSelected = selected.size === cards.length;
  const chosen = [...selected];

  return (
    <Stack>
      {/* Keys are for a keyboard: a phone's screen is better spent on the cards. */}
      <Text size="sm" c="dimmed" id="approval-keys" visibleFrom="sm">
        Keyboard: <Kbd>j</Kbd> next card, <Kbd>k</Kbd> previous, <Kbd>x</Kbd> select, <Kbd>a</Kbd> approve,{" "}
        <Kbd>c</Kbd> cancel the card the keys act on.
      </Text>
      <Paper withBorder p="sm" radius="md">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Checkbox
            label={`Select all ${cards.length} shown${total > cards.length ? ` (of ${total} waiting)` : ""}`}
            checked={allSelected}
            indeterminate={selected.size > 0 && !allSelected}
            onChange={() => setSelected(allSelected ? new Set() : new Set(cards.map((card) => card.id)))}
          />
          <Group gap="xs" wrap="wrap">
            <Button
              disabled={chosen.length === 0}
              onClick={() => askToApprove(cards.filter((card) => selected.has(card.id)))}
            >
              Approve selected ({chosen.length})…
            </Button>
            <Button
              variant="default"
              color="red"
              disabled={chosen.length === 0}
              onClick={() => askToCancel(cards.filter((card) => selected.has(card.id)))}
            >
              Cancel selected…
            </Button>
          </Group>
        </Group>
      </Paper>
      <Stack
        component="ul"
        gap="md"
        p={0}
        m={0}
        style={{ listStyle: "none" }}
        aria-label="Cards awaiting approval"
        onFocus={(event) => {
          lastFocused.current = event.target;
        }}
      >
        {staged.map((card, index) => (
          <Paper
            component="li"
            key={card.id}
            withBorder
            p="md"
            radius="md"
            tabIndex={index === current ? 0 : -1}
            ref={(element: HTMLLIElement | null) => {
              rows.current[index] = element;
            }}
            onFocus={() => setCurrent(index)}
            aria-current={index === current ? "true" : undefined}
            aria-label={`Card to ${recipientOf(card.recipient_name)}, ${card.address}`}
            style={{
              outline: index === current ? "3px solid var(--mantine-color-indigo-8)" : undefined,
              outlineOffset: 2,
            }}
          >
            <Group justify="space-between" align="flex-start" wrap="wrap" mb="sm" gap="sm">
              <Group align="flex-start" gap="sm" wrap="nowrap" miw={0}>
                <Checkbox
                  aria-label={`Select the card to ${card.address}`}
                  checked={selected.has(card.id)}
                  onChange={() => toggle(card.id)}
                  mt={4}
                />
                {/* A name or address with no place to break wraps anywhere rather than widen the page. */}
                <Stack gap={2} miw={0} style={{ overflowWrap: "anywhere" }}>
                  <Title order={2} size="h5">
                    {recipientOf(card.recipient_name)}
                  </Title>
                  <Text size="sm">{card.address}</Text>
                  <Text size="xs" c="dimmed">
                    {card.automation_name ?? "No automation"}
                    {card.test_card ? " · test card" : ""} · queued {formatDateTime(card.created_at)} ·{" "}
                    <AnchorLink to="/mail/$pieceId" params={{ pieceId: card.id }} size="xs">
                      Open the card
                    </AnchorLink>
                  </Text>
                </Stack>
              </Group>
              {/* A phone has the buttons under the proof, so the card is seen before it is approved. */}
              {!phone && (
                <Group gap="xs">
                  {index === current && (
                    <Text size="sm" fw={700} c="indigo.9">
                      Keys act on this card
                    </Text>
                  )}
                  <CardActions
                    busy={busy}
                    onApprove={() => approveCards([card.id])}
                    onCancel={() => askToCancel([card])}
                  />
                </Group>
              )}
            </Group>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
              <Image
                src={card.front_url}
                alt={`Front of the card to ${card.address}`}
                radius="sm"
                loading={index < CARDS_IN_FIRST_RENDER ? "eager" : "lazy"}
              />
              <Image
                src={card.back_url}
                alt={`Back of the card to ${card.address}`}
                radius="sm"
                loading={index < CARDS_IN_FIRST_RENDER ? "eager" : "lazy"}
              />
            </SimpleGrid>
            {phone && (
              <Group mt="sm" gap="sm" grow>
                <CardActions
                  busy={busy}
                  onApprove={() => approveCards([card.id])}
                  onCancel={() => askToCancel([card])}
                />
              </Group>
            )}
          </Paper>
        ))}
      </Stack>
      <ApproveCardsDialog
        opened={askingToApprove}
        cards={cardsToApprove}
        costPerCardCents={costPerCardCents}
        waitingForCap={waitingForCap}
        capOpensOn={safety ? nextMonthDay(safety.month) : undefined}
        onClose={() => setAskingToApprove(false)}
        onConfirm={approveAskedCards}
        onFocusLost={focusHighlightedCard}
      />
      <CancelCardsDialog
        opened={askingToCancel}
        cards={cardsToCancel}
        onClose={() => setAskingToCancel(false)}
        onConfirm={cancelAskedCards}
        onFocusLost={focusHighlightedCard}
      />
    </Stack>
  );
}

/** A card's own Approve and Cancel…: beside its name on a wide screen, under its proof on a phone. */
function CardActions({
  busy,
  onApprove,
  onCancel,
}: {
  busy: boolean;
  onApprove: () => void;
  onCancel: () => void;
}) {
  return (
    <>
      <Button size="sm" onClick={onApprove} disabled={busy}>
        Approve
      </Button>
      <Button size="sm" variant="default" color="red" onClick={onCancel} disabled={busy}>
        Cancel…
      </Button>
    </>
  );
}
