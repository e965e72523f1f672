import { randomUUID } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { Queryable } from "../db/database.ts";
import { assertPrintable } from "../domain/printable-text.ts";
import { geocodePieceJob, processPieceJob } from "../jobs/kinds.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { assertNotFuture, newPiece, toPieceView } from "../pieces/campaigns.ts";
import { insertRecordedMailing, insertSentMailing } from "../pieces/piece-updates.ts";

export interface MailingDeps {
  db: Queryable;
  clock: Clock;
  publicBaseUrl: string;
}

/** The operator's record of mail already sent (POST /admin/v1/orgs/{id}/mailings). */
export interface RecordedMailingInput {
  campaign_name?: string;
  pieces: { address: string; recipient_name?: string; mailed_at?: string }[];
}

/** One card of a mailing sent now: a home already located (an imported past job). */
export interface MailingRecipient {
  address: string;
  recipientName: string | null;
  latitude: number | null;
  longitude: number | null;
  precision: string | null;
  properties: Record<string, string>;
}

/** A mailing sent through the pipeline: its own card, since no automation carries one. */
export interface SentMailingInput {
  name: string;
  origin: "reactivation";
  /** Stored as the pipeline's template column reads it: headline, message, size, offer. */
  template: Record<string, unknown>;
  recipients: readonly MailingRecipient[];
}

/**
 * Mailings that no automation queued: the operator's record of mail already sent, and the app's
 * reactivation mailing, which sends cards now. One place checks the addresses, writes the
 * campaign and its pieces (each with its landing token) and queues the jobs, so a sent mailing's
 * cards go through the same pipeline (suppression, mail safety, rendering, print) as any other.
 */
export function createMailingService(deps: MailingDeps) {
  const { db, clock, publicBaseUrl } = deps;

  function assertPrintableRecipients(pieces: readonly { address: string; recipient_name?: string | null }[]) {
    for (const [index, piece] of pieces.entries()) {
      assertPrintable(piece.address, `pieces[${index}].address`);
      assertPrintable(piece.recipient_name ?? undefined, `pieces[${index}].recipient_name`);
    }
  }

  /** Records mail already sent (mailing history): one campaign, its pieces marked mailed. */
  async function record(orgId: string, input: RecordedMailingInput) {
    const now = clock.now();
    assertPrintableRecipients(input.pieces);
    for (const [index, piece] of input.pieces.entries()) {
      if (piece.mailed_at) assertNotFuture(new Date(piece.mailed_at), now, `pieces[${index}].mailed_at`);
    }
    const campaignId = randomUUID();
    const name = input.campaign_name ?? `Mailing ${now.toISOString().slice(0, 10)}`;
    const pieceRows = input.pieces.map((piece) =>
      newPiece({
        orgId,
        campaignId,
        address: piece.address,
        recipientName: piece.recipient_name,
        status: "mailed",
        mailedAt: piece.mailed_at ? new Date(piece.mailed_at) : now,
      }),
    );
    const inserted = await db.transaction(async (tx) => {
      const rows = await insertRecordedMailing(tx, { orgId, id: campaignId, name }, pieceRows);
      // Located in the background for geo attribution; the address key serves until then.
      for (const row of rows) {
        await enqueueJob(tx, geocodePieceJob, { org_id: orgId, piece_id: row.id }, { orgId, now });
      }
      return rows;
    });
    return {
      campaign_id: campaignId,
      pieces: inserted.map((row) => {
        const { id, address, token, landing_url, mailed_at } = toPieceView(row, publicBaseUrl);
        return { id, address, token, landing_url, mailed_at };
      }),
    };
  }

  /**
   * Sends a mailing now: one campaign carrying its card, its pieces queued with a process_piece
   * job each, in one transaction. `afterWrite` runs inside it (the caller's own record).
   */
  async function send(
    orgId: string,
    input: SentMailingInput,
    afterWrite?: (tx: Queryable, campaignId: string) => Promise<void>,
  ): Promise<{ campaign_id: string; queued: number }> {
    const now = clock.now();
    assertPrintableRecipients(
      input.recipients.map((recipient) => ({
        address: recipient.address,
        recipient_name: recipient.recipientName,
      })),
    );
    const campaignId = randomUUID();
    const pieceRows = input.recipients.map((recipient) => ({
      ...newPiece({
        orgId,
        campaignId,
        address: recipient.address,
        recipientName: recipient.recipientName,
        status: "queued",
        properties: recipient.properties,
      }),
      latitude: recipient.latitude,
      longitude: recipient.longitude,
      geoPrecision: recipient.precision,
      createdAt: now,
    }));
    await db.transaction(async (tx) => {
      await insertSentMailing(
        tx,
        { orgId, id: campaignId, name: input.name, origin: input.origin, template: input.template, now },
        pieceRows,
      );
      for (const piece of pieceRows) {
        await enqueueJob(tx, processPieceJob, { org_id: orgId, piece_id: piece.id }, { orgId, now });
      }
      await afterWrite?.(tx, campaignId);
    });
    return { campaign_id: campaignId, queued: pieceRows.length };
  }

  return { record, send };
}

export type MailingService = ReturnType<typeof createMailingService>;
