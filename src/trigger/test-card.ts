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
 * click or a retry sends one card). Its record is kept as a sample of the automation's event type, so the builder's
 * proof and "Test with a sample" have one; no CRM connection is recorded.
 */
import { createHash } from "node:crypto";
import type { Automation } from "../automations/automations.ts";
import type { KillSwitch } from "../automations/kill-switch.ts";
import { mailAddressOf } from "../domain/address.ts";
import {
  type AddressCheckBeforePrint,
  checkAddressOffline,
  writtenAddressOf,
} from "../domain/deliverable-address.ts";
import { isoOf } from "../domain/iso-date.ts";
import { TEST_CARD_RECORD_PREFIX } from "../domain/test-card-record.ts";
import { AppError, refusedFields } from "../errors.ts";
import { isNeighbours } from "../neighbours/audience.ts";
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

export interface TestCardRequest {
  orgId: string;
  automation: Automation;
  /** The app's id of this send (a UUID): the same id sends one card, whoever retries. */
  requestId: string;
  recipient: TestCardRecipient;
  /** The organization's check before print: an address it would refuse is refused here, on the form. */
  addressCheck: AddressCheckBeforePrint;
}

export interface TestCardResult {
  /** `queued`: a card is on its way through the pipeline; `duplicate`: this request sent it already. */
  outcome: Extract<TriggerReason, "queued" | "duplicate">;
  /** The card's id (the same for a repeated request); its pipeline job inserts it within moments. */
  piece_id: string;
  /** The address as the card will carry it. */
  address: string;
}

export const neighbourTestRefused = () =>
  new AppError(
    409,
    "neighbour_audience",
    "This automation mails the neighbors around a job, so a test card would mail them too. Use Test with a sample to see which homes it would reach.",
  );

export async function sendTestCard(deps: TestCardDeps, request: TestCardRequest): Promise<TestCardResult> {
  const { automation, orgId } = request;
  if (isNeighbours(automation.audience)) throw neighbourTestRefused();
  await deps.killSwitch.assertRunning();
  const properties = testCardProperties(request.recipient);
  const address = mailAddressOf(properties);
  if (!address) throw notAnAddress("The street, city, state and ZIP together must make one US address.");
  if (request.addressCheck.verifier === "offline") {
    const verdict = checkAddressOffline(
      writtenAddressOf(address.line, address.parts),
      request.addressCheck.level,
    );
    if (!verdict.deliverable)
      throw notAnAddress(`No carrier can deliver to this address: ${verdict.reason}.`);
  }
  const pieceId = testCardPieceId(automation.id, request.requestId);
  const run = await runTrigger(deps, {
    orgId,
    // The typed record has none of a CRM's fields: the automation's filters are not asked.
    candidates: [{ ...automation, filters: [] }],
    properties,
    dedup: { kind: "test_card", key: request.requestId },
    origin: "test_card",
    source: "app",
    dryRun: false,
    address,
    pieceIdOf: () => pieceId,
    ...(automation.trigger ? sampleOf(deps, request, automation.trigger, properties) : {}),
  });
  // No filter and no loop guard applies: the one automation queues the card, or absorbs the repeat,
  // or its write failed (logged).
  const outcome = run.outcomes[0]?.reason;
  if (outcome !== "queued" && outcome !== "duplicate") {
    throw new AppError(
      500,
      "internal_error",
      "the test card could not be queued; nothing was sent, try again",
    );
  }
  return { outcome, piece_id: pieceId, address: address.line };
}

const notAnAddress = (words: string) =>
  refusedFields(422, "invalid_payload", `address: ${words}`, { address: words });

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
function sampleOf(
  deps: TestCardDeps,
  request: TestCardRequest,
  trigger: NonNullable<Automation["trigger"]>,
  properties: Record<string, string>,
) {
  const now = deps.clock.now();
  const id = `${TEST_CARD_RECORD_PREFIX}${request.requestId}`;
  const envelope = cleanEnvelope({
    event_type: trigger.event_type,
    object_type: trigger.object_type ?? "job",
    dedup_id: id,
    occurred_at: isoOf(now),
    record: { id, properties },
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
