/**
 * A test card: one real card of one automation, for an address an owner types in the app, so a
 * contractor without a CRM or a developer sees the card their automation mails (its QR code and
 * landing page included) before any event arrives.
 *
 * It goes the way an event's card goes (trigger core, then the piece pipeline and every mail-safety
 * rule: customers, do-not-mail, the frequency cap, the address check, hold, approval, caps), with
 * the differences its sender expects: only this automation mails (not every automation bound to
 * its event type), on or off, whatever its CRM filters; it is never held out and never followed up
 * (piece-record.ts reads its campaign's origin); and its request id makes it idempotent (a double
 * click or a retry sends one card). Its record is kept as a sample of the automation's event type,
 * so the builder's proof and "Test with a sample" have one; no CRM connection is recorded.
 *
 * Usage: `checkedRecipient(recipient, addressCheck)` (422 on the fields the card could not carry),
 * then `sendTestCard(deps, { orgId, automation, requestId, recipient })`.
 */
import { createHash } from "node:crypto";
import type { Automation } from "../automations/automations.ts";
import type { KillSwitch } from "../automations/kill-switch.ts";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import { type MailAddress, mailAddressOf } from "../domain/address.ts";
import {
  type AddressCheckBeforePrint,
  offlineAddressProblems,
  writtenAddressOf,
} from "../domain/deliverable-address.ts";
import { isoOf } from "../domain/iso-date.ts";
import { unprintableCharacter } from "../domain/printable-text.ts";
import { TEST_CARD_RECORD_PREFIX } from "../domain/test-card-record.ts";
import { AppError, invalidFields } from "../errors.ts";
import { isNeighbours } from "../neighbours/audience.ts";
import { unprintableCharacters } from "../render/printable-text.ts";
import { cleanEnvelope, type TriggerReason } from "./envelope.ts";
import { newEventSample } from "./samples.ts";
import { runTrigger, type TriggerDeps } from "./trigger-core.ts";

export interface TestCardDeps extends TriggerDeps {
  killSwitch: Pick<KillSwitch, "assertRunning">;
}

export interface TestCardRecipient {
  name?: string | undefined;
  street: string;
  city: string;
  state: string;
  zip: string;
}

/** A recipient the card can carry: its record's properties and the address it goes to. */
export interface CheckedRecipient {
  properties: Record<string, string>;
  address: MailAddress;
}

export interface TestCardRequest {
  orgId: string;
  automation: Automation;
  /** The app's id of this send (a UUID): the same id sends one card, whoever retries. */
  requestId: string;
  recipient: CheckedRecipient;
}

export interface TestCardResult {
  /** `queued`: a card is on its way through the pipeline; `duplicate`: this request sent it already. */
  outcome: Extract<TriggerReason, "queued" | "duplicate">;
  /** The card's id (the same for a repeated request); its pipeline job inserts it within moments. */
  piece_id: string;
  /** The address the card goes to (a repeated request's: the first one's). */
  address: string;
}

/** A neighbor automation has no test card: it would mail the neighbors. */
export function assertTestCardAudience(automation: Automation): void {
  if (!isNeighbours(automation.audience)) return;
  throw new AppError(
    409,
    "neighbour_audience",
    "This automation mails the neighbors around a job, so a test card would mail them too. Use Test with a sample to see which homes it would reach.",
  );
}

const FIELD_NAMES = {
  name: "name",
  street: "street",
  city: "city",
  state: "state",
  zip: "ZIP code",
} as const;

/**
 * The recipient as the card will carry it, or 422 naming each field it could not: a character no
 * card prints (a control or format character, or one the typeface lacks: the card would drop it and
 * the sender would not see what they typed), no US address at all, or an address the
 * organization's check before print would refuse (each problem on its own part).
 */
export function checkedRecipient(
  recipient: TestCardRecipient,
  addressCheck: AddressCheckBeforePrint,
): CheckedRecipient {
  const properties = testCardProperties(recipient);
  const fields: Record<string, string> = {};
  for (const field of Object.keys(FIELD_NAMES) as (keyof typeof FIELD_NAMES)[]) {
    const problem = unprintableWords(recipient[field] ?? "");
    if (problem) fields[field] = `The card cannot print the ${FIELD_NAMES[field]}: ${problem}.`;
  }
  const address = mailAddressOf(properties);
  if (Object.keys(fields).length === 0 && !address) {
    fields.street = "The street, city, state and ZIP code together must make one US address.";
  }
  if (Object.keys(fields).length === 0 && address && addressCheck.verifier === "offline") {
    const written = writtenAddressOf(address.line, address.parts);
    for (const problem of offlineAddressProblems(written, addressCheck.level)) {
      fields[problem.part] ??= `No carrier can deliver to this address: ${problem.words}.`;
    }
  }
  const refused = invalidFields(fields);
  if (refused) throw refused;
  return { properties, address: address! };
}

function unprintableWords(value: string): string | undefined {
  const control = unprintableCharacter(value);
  if (control) return `it holds ${control}, a control or format character`;
  const missing = unprintableCharacters(value);
  if (missing.length === 0) return undefined;
  return `its typeface has no ${missing.slice(0, 3).join(" ")} (Latin, Greek and Cyrillic letters print)`;
}

export async function sendTestCard(deps: TestCardDeps, request: TestCardRequest): Promise<TestCardResult> {
  const { automation, orgId, requestId } = request;
  assertTestCardAudience(automation);
  await deps.killSwitch.assertRunning();
  const pieceId = testCardPieceId(automation.id, requestId);
  const dedup = { kind: "test_card" as const, key: requestId };
  // A repeat answers the first send's card without running again (nor keeping its record twice).
  const earlier = await deps.triggerStore.findCampaign({ orgId, automationId: automation.id, ...dedup });
  if (earlier) return duplicateOf(deps.db, orgId, pieceId, earlier, request.recipient.address);
  const { properties, address } = request.recipient;
  const run = await runTrigger(deps, {
    orgId,
    // The typed record has none of a CRM's fields: the automation's filters are not asked.
    candidates: [{ ...automation, filters: [] }],
    properties,
    dedup,
    origin: "test_card",
    source: "app",
    dryRun: false,
    address,
    pieceIdOf: () => pieceId,
    ...(automation.trigger ? sampleOf(deps, request, automation.trigger) : {}),
  });
  // No filter and no loop guard applies: the one automation queues the card, or absorbs a repeat
  // sent at the same moment, or its write failed (logged).
  const outcome = run.outcomes[0];
  if (outcome?.reason === "queued") return { outcome: "queued", piece_id: pieceId, address: address.line };
  if (outcome?.reason === "duplicate" && outcome.campaign_id) {
    return duplicateOf(deps.db, orgId, pieceId, outcome.campaign_id, address);
  }
  throw new AppError(
    503,
    "service_unavailable",
    "The test card could not be queued: nothing was sent. Try again.",
  );
}

/** The first send's card: its address as its piece (or, until the piece is written, its job) holds it. */
async function duplicateOf(
  db: Queryable,
  orgId: string,
  pieceId: string,
  campaignId: string,
  typed: MailAddress,
): Promise<TestCardResult> {
  const first = await queryOne<{ address: string }>(
    db,
    sql`SELECT address FROM mail_pieces WHERE org_id = ${orgId}::uuid AND id = ${pieceId}::uuid
        UNION ALL
        SELECT payload -> 'piece' ->> 'address' FROM jobs WHERE id = ${campaignId}::uuid
        LIMIT 1`,
  );
  return { outcome: "duplicate", piece_id: pieceId, address: first?.address ?? typed.line };
}

function testCardProperties(recipient: TestCardRecipient): Record<string, string> {
  const name = recipient.name?.trim();
  return {
    street: recipient.street.trim(),
    city: recipient.city.trim(),
    state: recipient.state.trim(),
    zip: recipient.zip.trim(),
    ...(name ? { client_name: name } : {}),
  };
}

/** The record kept as a sample of the automation's event type, as an event of it would be kept. */
function sampleOf(deps: TestCardDeps, request: TestCardRequest, trigger: NonNullable<Automation["trigger"]>) {
  const now = deps.clock.now();
  const id = `${TEST_CARD_RECORD_PREFIX}${request.requestId}`;
  const envelope = cleanEnvelope({
    event_type: trigger.event_type,
    object_type: trigger.object_type ?? "job",
    dedup_id: id,
    occurred_at: isoOf(now),
    record: { id, properties: request.recipient.properties },
  });
  return { sample: newEventSample(request.orgId, envelope, now) };
}

/**
 * The piece's id follows from the automation and the request, so a repeated request answers the
 * card the first one queued, even before its job has inserted it.
 */
export function testCardPieceId(automationId: string, requestId: string): string {
  const hex = createHash("sha256").update(`test-card:${automationId}:${requestId}`).digest("hex");
  // RFC 9562's version 8 (custom), with the RFC variant bits.
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
