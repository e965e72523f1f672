/**
 * A card no carrier could deliver, sent again to the address a person corrected (the app's card
 * page). A finished job sends no next event, so correcting the address in the CRM alone never mails
 * the home. The new card is a first card of the same campaign (the automation's card, its approval,
 * hold and caps, its follow-ups), queued through the whole pipeline like any other, and names the
 * card it corrects: each undeliverable card is corrected once (migrations/0660).
 */
import type { Clock } from "../clock.ts";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import type { PieceStatus } from "../db/schema.ts";
import { normalizeAddress } from "../domain/address.ts";
import {
  type AddressCheckBeforePrint,
  checkAddressOffline,
  streetAsWritten,
  townAsZipSpellsIt,
  writtenAddressOf,
} from "../domain/deliverable-address.ts";
import { unprintableCharacter } from "../domain/printable-text.ts";
import { isUuid } from "../domain/uuid.ts";
import { AppError, invalidFields, notFound } from "../errors.ts";
import { processPieceJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { newLandingToken } from "./campaigns.ts";

export const CORRECTED_ADDRESS_MAX_LENGTH = 300;
export const RECIPIENT_NAME_MAX_LENGTH = 200;

export interface Correction {
  address: string;
  /** The name the card prints; the undeliverable card's when absent. */
  recipientName?: string;
}

export interface ResendDeps {
  db: Queryable;
  clock: Clock;
}

interface Undeliverable {
  id: string;
  status: PieceStatus;
  campaign_id: string;
  address: string;
  recipient_name: string | null;
  sequence_step: number | null;
  corrected_by: string | null;
}

const sameText = (a: string, b: string) =>
  a.trim().replace(/\s+/g, " ").toLowerCase() === b.trim().replace(/\s+/g, " ").toLowerCase();

/** The corrected fields as the card would print them, or the fields refused in words. */
function checkCorrection(correction: Correction, original: Undeliverable, check: AddressCheckBeforePrint) {
  const address = correction.address.trim().replace(/\s+/g, " ");
  const recipientName = (correction.recipientName ?? original.recipient_name ?? "").trim() || null;
  const fields: Record<string, string> = {};
  const unprintable = unprintableCharacter(address);
  if (address === "") fields.address = "Enter the corrected address.";
  else if (unprintable) fields.address = `The address has a character no card can print (${unprintable}).`;
  else if (check.verifier === "lob" && sameText(address, original.address))
    fields.address = "This is the address no carrier could deliver to: correct it first.";
  else if (check.verifier === "offline") {
    const verdict = checkAddressOffline(writtenAddressOf(address, {}), check.level);
    if (!verdict.deliverable)
      fields.address = `No carrier can deliver to this address either: ${verdict.reason}.`;
  }
  const unprintableName = recipientName ? unprintableCharacter(recipientName) : undefined;
  if (unprintableName)
    fields.recipient_name = `The name has a character no card can print (${unprintableName}).`;
  const refused = invalidFields(fields);
  if (refused) throw refused;
  return { address, recipientName };
}

/** The corrected line's parts as the person wrote them: the card prints them (its headline's street, the address block). */
function partsAsWritten(line: string) {
  const written = writtenAddressOf(line, {});
  return {
    street: streetAsWritten(line) ?? written.street ?? null,
    city: townAsZipSpellsIt(written.city, written.zip) ?? null,
    state: written.state ?? null,
    zip: written.zip ?? null,
  };
}

const notResendable = (detail: string) => new AppError(409, "not_resendable", detail);

/**
 * Queues the corrected card and answers its id. Refused: another organization's or no card (404); a
 * card that is not undeliverable, a follow-up (its first card carries the address), or one already
 * corrected (409 not_resendable, naming the card sent instead); an address the check before print
 * would refuse again (422 on the field).
 */
export async function resendToCorrectedAddress(
  deps: ResendDeps,
  orgId: string,
  pieceId: string,
  correction: Correction,
  check: AddressCheckBeforePrint,
): Promise<{ id: string; address: string; recipient_name: string | null }> {
  if (!isUuid(pieceId)) throw notFound("piece not found");
  return deps.db.transaction(async (tx) => {
    // The row lock queues two corrections of one card one after the other; the read after it is a
    // statement of its own, so (at READ COMMITTED) it sees the correction the first one committed.
    await tx.execute(
      sql`SELECT id FROM mail_pieces WHERE org_id = ${orgId}::uuid AND id = ${pieceId}::uuid FOR UPDATE`,
    );
    const original = await queryOne<Undeliverable>(
      tx,
      sql`SELECT p.id, p.status, p.campaign_id, p.address, p.recipient_name, p.sequence_step,
                 (SELECT r.id FROM mail_pieces r WHERE r.org_id = p.org_id AND r.corrects_piece_id = p.id) AS corrected_by
          FROM mail_pieces p WHERE p.org_id = ${orgId}::uuid AND p.id = ${pieceId}::uuid`,
    );
    if (!original) throw notFound("piece not found");
    if (original.corrected_by)
      throw notResendable(
        `the card was already sent again to a corrected address (card ${original.corrected_by})`,
      );
    if (original.status !== "undeliverable")
      throw notResendable(
        `the card is ${original.status.replaceAll("_", " ")}; only an undeliverable card is sent again`,
      );
    if (original.sequence_step !== null)
      throw notResendable("a follow-up card goes to its first card's address: correct the first card");
    const { address, recipientName } = checkCorrection(correction, original, check);
    const now = deps.clock.now();
    const parts = partsAsWritten(address);
    const created = await queryOne<{ id: string }>(
      tx,
      sql`INSERT INTO mail_pieces (org_id, id, campaign_id, status, recipient_name, address, street, city, state, zip,
                                   normalized_address, token, properties, created_at, corrects_piece_id)
          SELECT org_id, gen_random_uuid(), campaign_id, 'queued', ${recipientName}, ${address}, ${parts.street},
                 ${parts.city}, ${parts.state}, ${parts.zip}, ${normalizeAddress(address)}, ${newLandingToken()},
                 properties, ${now.toISOString()}::timestamptz, id
          FROM mail_pieces WHERE org_id = ${orgId}::uuid AND id = ${original.id}::uuid
          RETURNING id`,
    );
    await enqueueJob(tx, processPieceJob, { org_id: orgId, piece_id: created!.id }, { orgId, now });
    return { id: created!.id, address, recipient_name: recipientName };
  });
}
