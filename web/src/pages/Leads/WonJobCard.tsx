import {
  Alert,
  Badge,
  Button,
  Group,
  List,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  type TextInputProps,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useRef, useState } from "react";
import { type Lead, useMarkLeadWon, useTakeBackLeadWon, type WonJob } from "../../api/leads.ts";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";
import { DetailCard, DetailField } from "../../ui/DetailCard.tsx";
import { focusFirstRefused, focusWhenShown } from "../../ui/focus.ts";
import { formatCalendarDay, money } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { typedDollars } from "../../ui/number-rules.ts";
import { sayOnFields } from "../../ui/refusal-on-fields.ts";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { cardWonHeadline, dealsOnThisCard, dealWords, type HomeWonDeal } from "./card-won.ts";

/** The server's ceiling (attribution/lead-won.ts WON_AMOUNT_MAX): more is a typo of zeros. */
const AMOUNT_MAX = 10_000_000;
const CHANGE_AMOUNT_ID = "won-job-change-amount";
const NEW_AMOUNT_ID = "won-job-new-amount";
const MARK_AMOUNT_ID = "won-job-amount";

const amountProblem = (value: string) => {
  if (!value.trim()) return `Enter the job's amount, from $0.01 to $${AMOUNT_MAX.toLocaleString("en-US")}.`;
  const amount = typedDollars(value);
  if (amount === null)
    return "Write the amount in digits, like 12500, 12,500.50 or 24k (cents after a dot, two digits at most).";
  return amount >= 0.01 && amount <= AMOUNT_MAX
    ? null
    : `Enter the job's amount, from $0.01 to $${AMOUNT_MAX.toLocaleString("en-US")}.`;
};

/** What the typed amount is recorded as, said under the field as it is typed ("24k": $24,000.00). */
const amountReadAs = (value: string) => {
  const amount = typedDollars(value);
  return amount === null || amountProblem(value) ? undefined : `Recorded as ${money(amount)}`;
};

/** A calendar day in the person's own time zone, as a date field takes it ("2026-12-06"). */
const localDay = (at: number) => {
  const date = new Date(at);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
};

/**
 * Job won: a contractor without a CRM connection records the job a lead became, and Revenue credits
 * the card that brought it; once won, the day, the amount and the card credited, and the amount can
 * be changed. A lead whose card already has a won deal (the CRM reported it, as Leads' Won says) is
 * said to be won, with that deal, and not offered to be recorded again: it would count the job twice.
 */
export function WonJobCard({ lead }: { lead: Lead }) {
  return (
    <DetailCard title="Job won">
      {lead.won ? (
        <WonJobFacts lead={lead} won={lead.won} />
      ) : lead.piece_id && dealsOnThisCard(lead).length > 0 ? (
        <CardAlreadyWon lead={lead} pieceId={lead.piece_id} deals={dealsOnThisCard(lead)} />
      ) : (
        <MarkWonForm lead={lead} />
      )}
    </DetailCard>
  );
}

function WonBadge() {
  return (
    <Group gap="xs">
      <Badge color="green" variant="light">
        Won
      </Badge>
    </Group>
  );
}

/** The lead's card has a won deal already (the CRM's, or another lead's): said, not offered again. */
function CardAlreadyWon({ lead, pieceId, deals }: { lead: Lead; pieceId: string; deals: HomeWonDeal[] }) {
  const cardName = lead.automation_name ?? lead.campaign_name ?? "the card this lead answered";
  return (
    <Stack gap={6}>
      <WonBadge />
      <Text size="sm" fw={600}>
        {cardWonHeadline(deals)}
      </Text>
      {deals.length === 1 ? (
        <DetailField label="Deal">{dealWords(deals[0]!)}</DetailField>
      ) : (
        <div>
          <Text size="sm" fw={700}>
            Deals:
          </Text>
          <List size="sm">
            {deals.map((deal, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the deals of one answer, never reordered
              <List.Item key={index}>{dealWords(deal)}</List.Item>
            ))}
          </List>
        </div>
      )}
      <DetailField label="Revenue">
        Counted toward{" "}
        <AnchorLink to="/mail/$pieceId" params={{ pieceId }}>
          {cardName}
        </AnchorLink>
      </DetailField>
      <Text size="sm" c="dimmed">
        Revenue counts this job already, so there is nothing to record here: marking the lead won too would
        count it twice. The home is one of your customers: no more cards are mailed to it.
      </Text>
    </Stack>
  );
}

/**
 * Dollars and cents as typed, refused in words rather than read loosely (the server takes $0.01 to
 * $10,000,000): a number field dropped the letter of "24k" and recorded $24. What it will record is
 * said under it.
 */
function JobAmountInput(props: TextInputProps) {
  return (
    <TextInput
      label="Job amount"
      required
      leftSection="$"
      inputMode="decimal"
      autoComplete="off"
      description={amountReadAs(String(props.value ?? ""))}
      inputWrapperOrder={["label", "input", "description", "error"]}
      {...props}
    />
  );
}

function wonToast(won: WonJob | null | undefined) {
  if (!won) return;
  notifications.show({
    color: "green",
    title: "Marked won",
    message: won.credited
      ? `Revenue counts ${money(won.amount)} toward ${won.credited.automation_name ?? won.credited.campaign_name ?? "its card"}.`
      : "The home is one of your customers now. No card reached it in the 180 days before, so Revenue does not count it.",
  });
}

function MarkWonForm({ lead }: { lead: Lead }) {
  const markWon = useMarkLeadWon(lead.id);
  const today = localDay(Date.now());
  // The server allows a day's slack before it for time zones; the lead's own local day is the plain rule.
  const firstDay = localDay(Date.parse(lead.received_at));
  const form = useForm<{ amount: string; closed_on: string }>({
    initialValues: { amount: "", closed_on: today },
    validate: {
      amount: amountProblem,
      closed_on: (value) =>
        !value
          ? "Enter the day the job was won."
          : value > today
            ? "The day the job was won cannot be in the future."
            : value < firstDay
              ? "A job won from this lead closes on or after the day it came in."
              : null,
    },
  });
  const submit = useSingleFlight(async (values: typeof form.values, formElement: HTMLFormElement | null) => {
    try {
      const answer = await markWon.mutateAsync({
        amount: typedDollars(values.amount)!,
        closed_on: values.closed_on,
      });
      wonToast(answer.won);
      // The form goes with the answer: the focus goes to what replaced it.
      focusWhenShown(() => document.getElementById(CHANGE_AMOUNT_ID));
    } catch (error) {
      sayOnFields(error, form.setErrors, formElement);
    }
  });
  return (
    <form
      onSubmit={form.onSubmit(
        (values, event) => void submit(values, event?.currentTarget ?? null),
        focusFirstRefused,
      )}
      noValidate
    >
      <Stack gap="sm">
        <Text size="sm">
          Won the job from this lead? Record it here: Revenue counts it toward the card that brought the lead,
          and the home joins your customers, so no more cards are mailed to it.
        </Text>
        {lead.home_won_deals.length > 0 && <CountedAlready deals={lead.home_won_deals} />}
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm" maw={460}>
          <JobAmountInput
            id={MARK_AMOUNT_ID}
            placeholder="e.g. 12,500 or 24k"
            {...form.getInputProps("amount")}
          />
          <TextInput
            type="date"
            label="Won on"
            required
            min={firstDay}
            max={today}
            {...form.getInputProps("closed_on")}
          />
        </SimpleGrid>
        <Button type="submit" loading={markWon.isPending} style={{ alignSelf: "flex-start" }}>
          Mark as won
        </Button>
      </Stack>
    </form>
  );
}

/** Won deals Revenue already has at the lead's home (the CRM's): marking the same job again counts it twice. */
function CountedAlready({ deals }: { deals: Lead["home_won_deals"] }) {
  return (
    <Alert color="yellow" title="This home already has won deals in Revenue" role="note">
      <Stack gap={4}>
        <Text size="sm">
          Mark this lead won only for another job: the same job marked here too would be counted twice.
        </Text>
        <List size="sm">
          {deals.map((deal, index) => (
            // Deals have no id here; their order is fixed by the server (newest first).
            // biome-ignore lint/suspicious/noArrayIndexKey: a read-only list, never reordered
            <List.Item key={index}>{dealWords(deal)}</List.Item>
          ))}
        </List>
      </Stack>
    </Alert>
  );
}

function WonJobFacts({ lead, won }: { lead: Lead; won: WonJob }) {
  const [changing, setChanging] = useState(false);
  const changeButton = useRef<HTMLButtonElement>(null);
  const stopChanging = () => {
    setChanging(false);
    focusWhenShown(() => changeButton.current);
  };
  return (
    <Stack gap={6}>
      <WonBadge />
      <DetailField label="Won on">{formatCalendarDay(won.closed_on)}</DetailField>
      {!changing && <DetailField label="Amount">{money(won.amount)}</DetailField>}
      <DetailField label="Revenue">
        {won.credited ? (
          <>
            Counted toward{" "}
            {won.credited.piece_id ? (
              <AnchorLink to="/mail/$pieceId" params={{ pieceId: won.credited.piece_id }}>
                {won.credited.automation_name ?? won.credited.campaign_name ?? "the card"}
              </AnchorLink>
            ) : (
              (won.credited.automation_name ?? won.credited.campaign_name ?? "the card")
            )}
          </>
        ) : (
          "Not counted: no card of yours reached this home in the 180 days up to that day."
        )}
      </DetailField>
      <Text size="sm" c="dimmed">
        The home is one of your customers: no more cards are mailed to it.
      </Text>
      {won.crm_deal ? (
        <Text size="sm" c="dimmed">
          Your CRM reported this job too{won.crm_deal.deal_id ? ` (deal ${won.crm_deal.deal_id})` : ""}:
          Revenue counts it once, at the CRM's amount. Change the amount in your CRM.
        </Text>
      ) : changing ? (
        <ChangeAmountForm lead={lead} won={won} done={stopChanging} />
      ) : (
        <Group gap="sm" mt={4}>
          <Button
            id={CHANGE_AMOUNT_ID}
            ref={changeButton}
            variant="default"
            size="xs"
            onClick={() => {
              setChanging(true);
              focusWhenShown(() => document.getElementById(NEW_AMOUNT_ID));
            }}
          >
            Change amount
          </Button>
          <TakeBackWon lead={lead} won={won} />
        </Group>
      )}
    </Stack>
  );
}

/**
 * A lead marked won by mistake (the wrong lead, a job that fell through) is taken back after a
 * dialog says what follows; a job the CRM reported too has no such button (the CRM's to change).
 */
function TakeBackWon({ lead, won }: { lead: Lead; won: WonJob }) {
  const [asking, setAsking] = useState(false);
  const takeBack = useTakeBackLeadWon(lead.id);
  const where = won.credited?.automation_name ?? won.credited?.campaign_name;
  return (
    <>
      <Button variant="outline" color="red.9" size="xs" onClick={() => setAsking(true)}>
        Not won after all
      </Button>
      <ConfirmDialog
        opened={asking}
        title="Take back this won job?"
        keepLabel="Keep it won"
        confirmLabel="Take it back"
        pendingLabel="Taking the won job back…"
        failureTitle="The won job was not taken back"
        onClose={() => setAsking(false)}
        onConfirm={async () => {
          await takeBack.mutateAsync();
          notifications.show({ color: "gray", title: "Won job taken back", message: "The lead is not won." });
          // The won facts, this dialog with them, give way to the form that marks it won: its amount
          // takes the focus (the dialog is gone before it could give the focus back itself).
          focusWhenShown(() => document.getElementById(MARK_AMOUNT_ID));
        }}
      >
        <Text size="sm">
          Revenue no longer counts {money(won.amount)}
          {where ? ` toward ${where}` : ""}. The home leaves your customers list unless your CRM reported a
          won deal there or it was added another way. Follow-up cards stopped when it was marked stay stopped.
        </Text>
      </ConfirmDialog>
    </>
  );
}

function ChangeAmountForm({ lead, won, done }: { lead: Lead; won: WonJob; done: () => void }) {
  const markWon = useMarkLeadWon(lead.id);
  const form = useForm<{ amount: string }>({
    initialValues: { amount: String(won.amount) },
    validate: { amount: amountProblem },
  });
  const submit = useSingleFlight(async (amount: number, formElement: HTMLFormElement | null) => {
    try {
      await markWon.mutateAsync({ amount, closed_on: won.closed_on });
      notifications.show({
        color: "green",
        title: "Amount changed",
        message: `The job is ${money(amount)} now.`,
      });
      done();
    } catch (error) {
      sayOnFields(error, form.setErrors, formElement);
    }
  });
  return (
    <form
      onSubmit={form.onSubmit(
        (values, event) => void submit(typedDollars(values.amount)!, event?.currentTarget ?? null),
        focusFirstRefused,
      )}
      noValidate
    >
      <Stack gap="sm" mt={4}>
        <JobAmountInput id={NEW_AMOUNT_ID} maw={220} {...form.getInputProps("amount")} />
        <Group gap="sm">
          <Button type="submit" size="xs" loading={markWon.isPending}>
            Save amount
          </Button>
          <Button variant="default" size="xs" onClick={done} disabled={markWon.isPending}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
