/**
 * What the mail safety rules would do now to the card a real event of a sample queues: the
 * builder's "Test with a sample" (the app's dry run). The pipeline's own rules, in the pipeline's
 * order (pieces/process-piece.ts: customers, then homeRules, the address check, the holdout group,
 * then printGates), decided on reads only: homeFacts is the pipeline's one read of the home, homeStop
 * and automationWait its decisions, checkAddressOffline its offline verifier, capReachedNow the
 * claim's test without the claim. Nothing is written.
 */
import { randomUUID } from "node:crypto";
import { type Static, Type } from "@fastify/type-provider-typebox";
import { type Queryable, queryOne } from "../db/database.ts";
import { normalizeAddress } from "../domain/address.ts";
import { checkAddressOffline, type WrittenAddress } from "../domain/deliverable-address.ts";
import { heldOutReason, isHeldOut } from "../domain/holdout-group.ts";
import { SUPPRESSED_REASON } from "../pieces/customer-homes.ts";
import { type HomeFacts, suppressedAsCustomer } from "../pieces/process-piece.ts";
import {
  AWAITING_APPROVAL_REASON,
  automationWait,
  holdReason,
  homeFacts,
  homeStop,
  type PrintRules,
  printRulesColumns,
} from "./piece-checks.ts";
import { frequencyCapDays } from "./settings.ts";
import { capReachedNow, capsOfScopeSql, type SafetyPiece } from "./spend-caps.ts";

const EarlierCard = Type.Object(
  {
    piece_id: Type.String({ description: "The earlier card (the app links it: /app/mail/{piece_id})." }),
    mailed_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
      description: "When it was mailed; null while it is still queued, waiting or printing.",
    }),
  },
  { additionalProperties: false },
);

export const SampleMailSafety = Type.Object(
  {
    outcome: Type.Union(
      [
        Type.Literal("prints"),
        Type.Literal("suppressed"),
        Type.Literal("skipped"),
        Type.Literal("undeliverable"),
        Type.Literal("held_out"),
        Type.Literal("held"),
        Type.Literal("awaiting_approval"),
        Type.Literal("capped"),
      ],
      {
        description:
          "What a real card for this sample would do now under the mail safety rules, the first rule that applies: `suppressed` (a registered customer the automation suppresses, or a home on the do-not-mail list), `skipped` (the per-home frequency cap), `undeliverable` (the address check before print refuses the address: see `address_check`) and `held_out` (the home is in the saved automation's holdout group) never print; `held` (the automation's hold window), `awaiting_approval` and `capped` (a monthly cap is reached) wait; `prints` passes them.",
      },
    ),
    rule: Type.Union(
      [
        Type.Literal("registered_customer"),
        Type.Literal("do_not_mail"),
        Type.Literal("frequency_cap"),
        Type.Literal("address_check"),
        Type.Literal("holdout_group"),
        Type.Literal("hold_window"),
        Type.Literal("approval"),
        Type.Literal("monthly_cap"),
        Type.Null(),
      ],
      { description: "The rule behind `outcome`; null for `prints`." },
    ),
    reason: Type.Union([Type.String(), Type.Null()], {
      description:
        "The reason a real card would carry for `outcome`, in the words Mail shows; null for `prints`.",
    }),
    frequency_cap_days: Type.Integer({ description: "The organization's frequency cap per home (0: off)." }),
    earlier_card: Type.Union([EarlierCard, Type.Null()], {
      description: "With `skipped`: the card to the same home inside the frequency cap's window.",
    }),
    address_check: Type.Union(
      [Type.Literal("passed"), Type.Literal("failed"), Type.Literal("at_print"), Type.Null()],
      {
        description:
          "The address check before print, at the organization's verification level (Settings → Mail safety): `passed` or `failed` by the offline check a real card meets (with `failed`, `address_problem` says why, whatever `outcome` is); `at_print` when the service verifies addresses with Lob (ADDRESS_VERIFIER=lob), which is asked only for a real card (each answer is paid); null for a neighbor audience (its homes come from the loaded addresses).",
      },
    ),
    address_problem: Type.Union([Type.String(), Type.Null()], {
      description: "With `address_check: failed`: what is wrong with the address, in the words Mail shows.",
    }),
    holdout_percent: Type.Integer({
      description:
        "The share of homes the automation keeps out of its mail: the draft's own setting when sent, else the saved automation's.",
    }),
    holdout_group: Type.Union([Type.Literal("held_out"), Type.Literal("mailed"), Type.Null()], {
      description:
        "The group of this home in the automation's holdout split; null when nothing is held out, for a new automation (its homes are split by its id, given when it is saved), and for a neighbor audience (each neighbor is drawn on its own).",
    }),
    hold_minutes: Type.Integer({ description: "The automation's hold window before print (0: none)." }),
    approval_required: Type.Boolean({
      description:
        "Each card waits for a member's approval before print (after the hold window): the draft's own setting when sent, else the saved automation's.",
    }),
    cap_reached: Type.Union([Type.String(), Type.Null()], {
      description: "A monthly cap a card would find reached now, in words; null when one more card fits.",
    }),
  },
  {
    additionalProperties: false,
    description:
      "With `queued`: what the mail safety rules would do now to a real card of this sample (customers, the do-not-mail list and the frequency cap per home, the address check, the holdout group, then the hold window, approval and monthly caps; for a neighbour audience, whose preview already leaves out customers, opted-out and recently mailed homes, the last three). Read only.",
  },
);
export type SampleMailSafety = Static<typeof SampleMailSafety>;

export interface SampleCheckInput {
  orgId: string;
  /** The saved automation the draft edits; null for a new one (no hold window, no caps of its own yet). */
  automationId: string | null;
  /** The address a real event would mail. */
  addressLine: string;
  /** Its parts as written (street, city, state, ZIP), what the address check before print reads. */
  writtenAddress: WrittenAddress;
  /** The organization's address verifier: Lob is paid per answer, so a test does not call it. */
  verifierName: "offline" | "lob";
  suppressCustomers: boolean;
  /** The draft's own approval setting; undefined: the saved automation's. */
  approvalRequired: boolean | undefined;
  /** The draft's own holdout share, else the saved automation's (0 for a new one). */
  holdoutPercent: number;
  /**
   * Whether the record's own home is mailed (a home audience). A neighbour audience mails the homes
   * around it, which its preview already chooses by the same customer, do-not-mail and frequency rules.
   */
  mailsTheHome: boolean;
  now: Date;
}

/**
 * The automation's hold window and approval mode and the month's caps on its cards, as printGates
 * reads them for a piece. A new automation (no id) has no hold window, approval or caps of its own
 * yet: its columns read as an automation's that has none, not as a mailing's.
 */
const automationRules = (db: Queryable, orgId: string, automationId: string | null) =>
  queryOne<PrintRules>(db, capsOfScopeSql({ orgId, automationId }, printRulesColumns(true)));

/**
 * The home's group in the automation's holdout split, as the pipeline draws it (by the saved
 * automation's id and the home); unknown before the automation is saved.
 */
function holdoutGroupOf(input: SampleCheckInput, addressKey: string): "held_out" | "mailed" | null {
  if (!input.mailsTheHome || input.holdoutPercent <= 0 || input.automationId === null) return null;
  return isHeldOut(input.automationId, input.holdoutPercent, addressKey) ? "held_out" : "mailed";
}

/** The address check a real card of a home audience meets, as the pipeline's offline verifier decides it. */
function addressCheckOf(
  input: SampleCheckInput,
  facts: HomeFacts | undefined,
): Pick<SampleMailSafety, "address_check" | "address_problem"> {
  if (!facts) return { address_check: null, address_problem: null };
  if (input.verifierName === "lob") return { address_check: "at_print", address_problem: null };
  const check = checkAddressOffline(input.writtenAddress, facts.verificationLevel);
  return check.deliverable
    ? { address_check: "passed", address_problem: null }
    : { address_check: "failed", address_problem: check.reason };
}

export async function sampleMailSafety(db: Queryable, input: SampleCheckInput): Promise<SampleMailSafety> {
  const { now } = input;
  // A card queued now: later than every card already queued, of no sequence, never held or approved.
  const piece: SafetyPiece = {
    orgId: input.orgId,
    id: randomUUID(),
    automationId: input.automationId,
    createdAt: now,
    sequenceFirstPieceId: null,
    holdUntil: null,
    approvedAt: null,
  };
  const addressKey = normalizeAddress(input.addressLine);
  const facts = input.mailsTheHome ? await homeFacts(db, piece, addressKey, now) : undefined;
  const stored = await automationRules(db, input.orgId, input.automationId);
  const rules = {
    hold_minutes: Number(stored?.hold_minutes ?? 0),
    approval_required: input.approvalRequired ?? stored?.approval_required ?? false,
  };
  const capReached = stored
    ? await capReachedNow(db, piece, { ...stored, cost: Number(stored.cost) }, now)
    : null;
  const known = {
    frequency_cap_days: facts?.frequencyCapDays ?? (await frequencyCapDays(db, input.orgId)),
    earlier_card: null,
    ...addressCheckOf(input, facts),
    holdout_percent: input.holdoutPercent,
    holdout_group: holdoutGroupOf(input, addressKey),
    hold_minutes: rules.hold_minutes,
    approval_required: rules.approval_required,
    cap_reached: capReached,
  };
  if (facts && suppressedAsCustomer(input.suppressCustomers, facts)) {
    return { ...known, outcome: "suppressed", rule: "registered_customer", reason: SUPPRESSED_REASON };
  }
  const stop = facts ? homeStop(facts) : null;
  if (stop) {
    const earlier = facts?.earlierPiece;
    return {
      ...known,
      outcome: stop.status,
      rule: stop.rule,
      reason: stop.reason,
      earlier_card:
        stop.rule === "frequency_cap" && earlier
          ? { piece_id: earlier.id, mailed_at: earlier.mailedAt?.toISOString() ?? null }
          : null,
    };
  }
  // The pipeline's order (process-piece.ts): the address check, then the holdout group, then the waits.
  if (known.address_check === "failed") {
    return { ...known, outcome: "undeliverable", rule: "address_check", reason: known.address_problem };
  }
  if (known.holdout_group === "held_out") {
    return {
      ...known,
      outcome: "held_out",
      rule: "holdout_group",
      reason: heldOutReason(input.holdoutPercent),
    };
  }
  const wait = automationWait(rules, piece);
  if (wait === "held") {
    const until = new Date(now.getTime() + rules.hold_minutes * 60_000);
    return { ...known, outcome: "held", rule: "hold_window", reason: holdReason(rules.hold_minutes, until) };
  }
  if (wait === "awaiting_approval") {
    return { ...known, outcome: "awaiting_approval", rule: "approval", reason: AWAITING_APPROVAL_REASON };
  }
  if (capReached) return { ...known, outcome: "capped", rule: "monthly_cap", reason: capReached };
  return { ...known, outcome: "prints", rule: null, reason: null };
}
