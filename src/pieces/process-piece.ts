import type { Logger } from "pino";
import type { Static } from "typebox";
import type { Clock } from "../clock.ts";
import { lockUntilCommit, type Queryable, queryOne, sql } from "../db/database.ts";
import type { VerificationLevel } from "../domain/deliverable-address.ts";
import { writtenAddressOf } from "../domain/deliverable-address.ts";
import { heldOutReason, isHeldOut } from "../domain/holdout-group.ts";
import { streetOfKey } from "../domain/same-home.ts";
import { type AddressVerifier, AddressVerifierUnavailableError } from "../geo/address-verifier.ts";
import type { Geocoder } from "../geo/geocoder.ts";
import type { HomeImagery } from "../imagery/home-imagery.ts";
import { handleJob, type JobContext, type RegisteredJob } from "../jobs/job-kind.ts";
import { geocodePieceJob, processPieceJob } from "../jobs/kinds.ts";
import { enqueueJob, failJobWithoutRetry, hasLiveJob } from "../jobs/queue.ts";
import { type PrintProvider, PrintRejectedError } from "../print/print-provider.ts";
import type { PrintFiles } from "../render/render.ts";
import type { Renderer } from "../render/renderer.ts";
import { landingUrl, newLandingToken } from "./campaigns.ts";
import { type ImageAtPrint, imagesAtPrint } from "./current-card-image.ts";
import { SUPPRESSED_REASON } from "./customer-homes.ts";
import { sweepCardImages } from "./draw-ahead.ts";
import { dateFollowUps, releaseDueFollowUp, scheduleFollowUps, stopEndedFollowUp } from "./follow-ups.ts";
import { keepPrintedImages, keptKeyOf, LIST_THUMBNAIL, type PrintedImage } from "./piece-images.ts";
import { THUMBNAIL_WIDTH } from "./piece-proof.ts";
import { loadPiece, mailingAddressOf, type PieceRecord } from "./piece-record.ts";
import {
  claimSubmission,
  ensureAddressKey,
  insertQueuedPiece,
  markHomeRulesPassed,
  moveQueuedPiece,
  recordGeocode,
  recordSubmission,
  recordVerifiedAddress,
  type SubmissionClaim,
} from "./piece-updates.ts";
import { composeCardOfPiece } from "./render-piece.ts";

/**
 * The home's rules (a registered customer, the do-not-mail list, the frequency cap), read and
 * decided one card at a time per home (a lock on the organization's street, held to the commit): a
 * card that passes is marked so, and the next card to the home sees it, whatever their order of
 * queueing (two automations' cards of one event are queued at the same instant).
 */
async function passHomeRules(
  deps: PipelineDeps,
  piece: PieceRecord,
  addressKey: string,
): Promise<{ home: HomeFacts; gate: Gate }> {
  return deps.db.transaction(async (tx) => {
    await lockUntilCommit(tx, `home:${piece.orgId}:${streetOfKey(addressKey)}`);
    const now = deps.clock.now();
    const home = await deps.safetyGates.homeFacts(tx, piece, addressKey, now);
    if (suppressedAsCustomer(piece.suppressCustomers, home)) {
      await moveQueuedPiece(tx, piece, { status: "suppressed" }, SUPPRESSED_REASON, now);
      return { home, gate: { go: false, outcome: "suppressed: registered customer" } };
    }
    const gate = await deps.safetyGates.homeRules(tx, piece, home, now);
    if (gate.go) await markHomeRulesPassed(tx, piece, now);
    return { home, gate };
  });
}

/** A mail safety rule's answer: the piece goes on, or it was moved out of `queued` (the outcome says how). */
export type Gate = { go: true } | { go: false; outcome: string };

/** What the rules before print know of a piece's home and organization (SafetyGates.homeFacts). */
export interface HomeFacts {
  /** The home is one of the organization's customers (the automation may suppress them). */
  registeredCustomer: boolean;
  /** The home is on the do-not-mail list. */
  optedOut: boolean;
  /** The organization's per-home frequency cap, in days (0: off). */
  frequencyCapDays: number;
  /**
   * The earlier piece to the home inside the frequency cap's window, if any. `undecided`: it is
   * still `queued` (before its own rules, or past them and not yet waiting or printed); it may yet
   * never be mailed (held out, undeliverable, suppressed), so the later piece waits for it instead
   * of yielding to it.
   */
  earlierPiece: { id: string; mailedAt: Date | null; undecided: boolean; queuedAt: Date } | null;
  /** How strictly the organization's addresses are checked before print. */
  verificationLevel: VerificationLevel;
}

/**
 * The mail safety rules a piece passes before print, in this order. They are mail-safety's and are
 * passed in: they change the piece's status through this module's piece-updates.ts, so this module
 * cannot import them.
 */
export interface SafetyGates {
  /** A held piece back at the end of its hold window; false when cancelled or not due. */
  releaseHeldPiece(db: Queryable, piece: PieceRecord, now: Date): Promise<boolean>;
  /** A capped piece trying again (new month, or a raised cap). */
  releaseCappedPiece(db: Queryable, piece: PieceRecord, now: Date): Promise<boolean>;
  /** The facts of the piece's home and organization the rules read, at once. */
  homeFacts(db: Queryable, piece: PieceRecord, addressKey: string, now: Date): Promise<HomeFacts>;
  /** The do-not-mail list and the frequency cap, decided on the home's facts. */
  homeRules(db: Queryable, piece: PieceRecord, facts: HomeFacts, now: Date): Promise<Gate>;
  /**
   * The automation's hold window and approval mode, then the month's caps, from which the card is
   * claimed (the piece is capped when a cap is reached).
   */
  printGates(db: Queryable, piece: PieceRecord, now: Date): Promise<Gate>;
}

export interface PipelineDeps {
  db: Queryable;
  clock: Clock;
  logger: Logger;
  geocoder: Geocoder;
  /** Checks each card's address before it is rendered, printed or counted in a cap. */
  addressVerifier: AddressVerifier;
  imagery: HomeImagery;
  printProvider: PrintProvider;
  /** Draws the print files off the event loop (the render pool). */
  renderer: Renderer;
  publicBaseUrl: string;
  safetyGates: SafetyGates;
}

/** The home is a registered customer and the piece's automation suppresses customers: it is never mailed. */
export const suppressedAsCustomer = (
  suppressCustomers: boolean,
  home: Pick<HomeFacts, "registeredCustomer">,
) => suppressCustomers && home.registeredCustomer;

/** Geocodes a piece that has no location yet; a geocoder failure is retried by a job of its own. */
async function locate(deps: PipelineDeps, piece: PieceRecord, log: Logger): Promise<PieceRecord> {
  if (piece.latitude !== null) return piece;
  try {
    const result = await deps.geocoder.geocode(piece.address);
    await recordGeocode(deps.db, piece, result);
    return result.found ? { ...piece, latitude: result.lat, longitude: result.lng } : piece;
  } catch (error) {
    // Location serves imagery and attribution; it is no reason to hold the mail.
    log.warn({ err: error }, "geocoding failed; mailing without a location, geocoding later");
    await enqueueJob(
      deps.db,
      geocodePieceJob,
      { org_id: piece.orgId, piece_id: piece.id },
      {
        orgId: piece.orgId,
        now: deps.clock.now(),
      },
    );
    return piece;
  }
}

/**
 * A card no carrier can deliver never prints: its address is checked at the organization's level
 * (once; a piece back from a hold, an approval or a cap keeps its verified address). Undeliverable:
 * the piece is `undeliverable` with the reason. A verifier that cannot answer is retried; on the
 * job's last attempt the piece fails, since it cannot be printed unchecked.
 */
async function verifyAddress(
  deps: PipelineDeps,
  piece: PieceRecord,
  level: VerificationLevel,
  context: JobContext,
  log: Logger,
): Promise<PieceRecord | undefined> {
  if (piece.verifiedAddress) return piece;
  const written = writtenAddressOf(piece.address, piece);
  let verification: Awaited<ReturnType<AddressVerifier["verify"]>>;
  try {
    verification = await deps.addressVerifier.verify(written, level, context.signal);
  } catch (error) {
    if (error instanceof AddressVerifierUnavailableError && context.attempt >= processPieceJob.maxAttempts) {
      const reason = `the address could not be verified: ${error.message}`;
      await moveQueuedPiece(deps.db, piece, { status: "failed" }, reason, deps.clock.now());
    }
    throw error;
  }
  if (!verification.deliverable) {
    await moveQueuedPiece(deps.db, piece, { status: "undeliverable" }, verification.reason, deps.clock.now());
    log.info({ reason: verification.reason, level }, "piece undeliverable: the address failed verification");
    return undefined;
  }
  const mailing = mailingAddressOf(piece);
  const verifiedAddress = verification.standardized ?? {
    line1: mailing.line1,
    line2: null,
    city: mailing.city,
    state: mailing.state,
    zip: mailing.zip,
  };
  await recordVerifiedAddress(deps.db, piece, verifiedAddress);
  return { ...piece, verifiedAddress };
}

/**
 * Draws the card's print files (and its images, but those kept already that show it) and hands them
 * to the printer.
 */
async function submit(
  deps: PipelineDeps,
  piece: PieceRecord,
  context: JobContext,
  claim: SubmissionClaim,
  log: Logger,
) {
  const lastAttempt = context.attempt >= processPieceJob.maxAttempts;
  const { card, sender, fellBack } = await composeCardOfPiece(piece, {
    db: deps.db,
    imagery: deps.imagery,
    publicBaseUrl: deps.publicBaseUrl,
    printAddressBlock: deps.printProvider.printsAddressBlock,
    // A transient imagery outage is retried; on the last try the card goes out with the placeholder.
    placeholderOnImageryError: lastAttempt,
    signal: context.signal,
  });
  const images = imagesAtPrint(deps, piece, sender, fellBack, claim.kept);
  const toDraw = images.filter((at) => at.draw).map((at) => at.image);
  const files = await deps.renderer.printFiles(card, {
    signal: context.signal,
    ...(toDraw.some((image) => image.size === "thumbnail") ? { thumbnailWidth: THUMBNAIL_WIDTH } : {}),
    previews: toDraw.filter((image) => image.size === "full").map((image) => image.side),
  });
  if (files.imagesError) log.warn({ reason: files.imagesError }, "the card's images could not be drawn");
  const receipt = await deps.printProvider.submit(
    {
      pieceId: piece.id,
      orgId: piece.orgId,
      size: card.size,
      frontPdf: files.frontPdf,
      backPdf: files.backPdf,
      to: mailingAddressOf(piece),
      landingUrl: landingUrl(deps.publicBaseUrl, piece.token),
      description: `Porchlight piece ${piece.id}`,
    },
    context.signal,
  );
  return { receipt, images: printedImages(piece, images, files) };
}

/** The card's images to keep as printed: those drawn with its print files, and the kept ones that show it. */
function printedImages(piece: PieceRecord, images: ImageAtPrint[], files: PrintFiles): PrintedImage[] {
  return images.flatMap(({ image, ...at }): PrintedImage[] => {
    const ref = { orgId: piece.orgId, pieceId: piece.id, ...image };
    if (!at.draw) return at.finalKey ? [{ image: ref, finalKey: at.finalKey }] : [];
    const drawn = image.size === "thumbnail" ? files.frontThumbnail : files.previews?.[image.side];
    return drawn ? [{ image: ref, bytes: drawn }] : [];
  });
}

const isListThumbnail = (image: PrintedImage) => image.image.size === LIST_THUMBNAIL.size;

/**
 * Keeps the printed card's images, after its receipt committed and apart from it: the receipt of a
 * card the printer has must never be rolled back for an image. A list thumbnail not kept (keeping
 * failed, or the kept drawing to make final was replaced meanwhile) is left to the draw-ahead sweep,
 * queued here; a crash right after the receipt, or a sweep that cannot be queued either, leaves it to
 * Mail, which draws a card without a kept thumbnail when someone looks. A preview not kept is drawn
 * (and kept final) the first time someone opens the card's page.
 */
async function keepImagesOfPrinted(
  deps: PipelineDeps,
  piece: PieceRecord,
  images: PrintedImage[],
  log: Logger,
) {
  if (images.length === 0) return;
  let notKept: PrintedImage[];
  try {
    notKept = await keepPrintedImages(deps.db, images);
    if (notKept.length > 0) log.info("a kept image was drawn again meanwhile; it is drawn as printed later");
  } catch (error) {
    log.warn({ err: error }, "the printed card's images were not kept; the sweep or a look draws them");
    notKept = images;
  }
  if (!notKept.some(isListThumbnail)) return;
  await sweepCardImages(deps.db, piece.orgId, deps.clock.now()).catch((sweepError: unknown) =>
    log.warn(
      { err: sweepError },
      "the draw-ahead sweep was not queued either; Mail draws the card when looked at",
    ),
  );
}

/**
 * A home in the automation's holdout group gets no card: the piece becomes `held_out` after the
 * rules that would stop any card (customer, do-not-mail, frequency cap, address) and before the
 * hold, approval and caps, so it never waits, is never approved, counted, rendered or sent.
 */
async function holdOut(deps: PipelineDeps, piece: PieceRecord, addressKey: string): Promise<boolean> {
  if (piece.automationId === null || !isHeldOut(piece.automationId, piece.holdoutPercent, addressKey)) {
    return false;
  }
  await moveQueuedPiece(
    deps.db,
    piece,
    { status: "held_out" },
    heldOutReason(piece.holdoutPercent),
    deps.clock.now(),
  );
  return true;
}

/**
 * Whether a job took the card for print (`claimSubmission`), its row locked to the commit: a try
 * still running past its timeout cannot take it between this answer and the card's failure.
 */
async function submissionClaimed(db: Queryable, ids: { orgId: string; id: string }): Promise<boolean> {
  const row = await queryOne<{ claimed: boolean }>(
    db,
    sql`SELECT submission_job_id IS NOT NULL AS claimed FROM mail_pieces
        WHERE org_id = ${ids.orgId}::uuid AND id = ${ids.id}::uuid FOR UPDATE`,
  );
  return row?.claimed === true;
}

/**
 * A card whose job was given up (its last try failed, timed out, or its worker stopped in it) fails
 * with the reason, rather than staying queued for ever unexplained, where it would also keep later
 * cards to its home waiting for it. One its job had not written yet is written, failed: the event
 * that queued it was acknowledged. A card another job will still take up is left to that one. A
 * card its job took for print stays queued: a try may have handed it to the printer, and a card
 * shown failed would be sent again (docs/architecture.md, "A job given up closes its work").
 */
async function giveUpCard(
  deps: PipelineDeps,
  db: Queryable,
  payload: Static<typeof processPieceJob.payload>,
  reason: string,
) {
  const ids = { orgId: payload.org_id, id: payload.piece_id };
  if (payload.piece) await insertQueuedPiece(db, { orgId: ids.orgId, pieceId: ids.id }, payload.piece);
  if (await hasLiveJob(db, processPieceJob, ids.orgId, { piece_id: ids.id })) return;
  if (await submissionClaimed(db, ids)) {
    deps.logger.warn(
      { orgId: ids.orgId, pieceId: ids.id, reason },
      "a given-up card was taken for print and may be printed; left queued: check with the printer",
    );
    return;
  }
  const why = `it could not be made ready for print in ${processPieceJob.maxAttempts} tries: ${reason}`;
  await moveQueuedPiece(db, ids, { status: "failed" }, why, deps.clock.now());
}

export function processPieceHandler(deps: PipelineDeps): RegisteredJob {
  return handleJob(
    processPieceJob,
    (payload, context) => processPiece(deps, payload, context),
    (db, payload, reason) => giveUpCard(deps, db, payload, reason),
  );
}

async function processPiece(
  deps: PipelineDeps,
  payload: Static<typeof processPieceJob.payload>,
  context: JobContext,
): Promise<void> {
  const log = deps.logger.child({ jobId: context.jobId, orgId: payload.org_id, pieceId: payload.piece_id });
  const loaded = payload.piece
    ? await insertQueuedPiece(deps.db, { orgId: payload.org_id, pieceId: payload.piece_id }, payload.piece)
    : await loadPiece(deps.db, payload.org_id, payload.piece_id);
  if (!loaded) {
    log.info({ status: "missing" }, "piece is not queued; nothing to do");
    return;
  }
  if (
    loaded.followUpEnded &&
    (await stopEndedFollowUp(deps.db, loaded, loaded.followUpEnded, deps.clock.now()))
  ) {
    log.info(
      { stopped_by: loaded.followUpEnded },
      "follow-up stopped: its step is gone or its automation is off",
    );
    return;
  }
  // A held piece comes back here at the end of its hold window (unless it was cancelled).
  const released =
    (loaded.status === "held" &&
      (await deps.safetyGates.releaseHeldPiece(deps.db, loaded, deps.clock.now()))) ||
    (loaded.status === "capped" &&
      (await deps.safetyGates.releaseCappedPiece(deps.db, loaded, deps.clock.now()))) ||
    // A follow-up card on its day (follow-ups.ts), from here on like any card.
    (loaded.status === "scheduled" &&
      (await releaseDueFollowUp(deps.db, loaded, deps.clock.now())) === "released");
  if (loaded.status !== "queued" && !released) {
    log.info({ status: loaded.status }, "piece is not queued; nothing to do");
    return;
  }
  const addressKey = await ensureAddressKey(deps.db, loaded);
  const { home, gate: homeGate } = await passHomeRules(deps, loaded, addressKey);
  if (!homeGate.go) {
    log.info({ outcome: homeGate.outcome }, "piece stopped by a mail safety rule");
    return;
  }
  const verified = await verifyAddress(deps, loaded, home.verificationLevel, context, log);
  if (!verified) return;
  if (await holdOut(deps, verified, addressKey)) {
    log.info("piece held out: the home is in the automation's holdout group");
    return;
  }
  // A first card that will be mailed unless a person stops it: its follow-ups exist from now on.
  await scheduleFollowUps(deps.db, verified, deps.clock.now(), newLandingToken);
  // Located before it may wait: the card a person approves shows the picture it will print with
  // (Mapbox draws a home from its coordinates, Street View prefers them to the address).
  const piece = await locate(deps, verified, log);
  const printGate = await deps.safetyGates.printGates(deps.db, piece, deps.clock.now());
  if (!printGate.go) {
    log.info({ outcome: printGate.outcome }, "piece waits under a mail safety rule");
    return;
  }
  const claim = await claimSubmission(deps.db, piece, context.jobId);
  if (!claim) {
    log.warn("another job holds this piece's submission; not submitting it twice");
    return;
  }
  try {
    const { receipt, images } = await submit(deps, piece, context, claim, log);
    // The first card's hand-over to the printer dates its follow-ups, each with its job.
    const datesFollowUps = piece.automationFollowUps > 0 && piece.sequenceStep === null;
    const now = deps.clock.now();
    const record = (db: Queryable) =>
      recordSubmission(db, piece, {
        jobId: context.jobId,
        provider: deps.printProvider.name,
        receipt,
        now,
        // The draw-ahead sweep, only for what the print leaves undrawn: the follow-ups' cards, or
        // this card's thumbnail when the print keeps none (a kept final one is null).
        sweep:
          datesFollowUps || (!images.some(isListThumbnail) && keptKeyOf(claim.kept, LIST_THUMBNAIL) !== null),
      });
    // One statement alone needs no transaction around it (two round trips fewer a card).
    const recorded = datesFollowUps
      ? await deps.db.transaction(async (tx) => {
          const recorded = await record(tx);
          await dateFollowUps(tx, piece, now, now, true);
          return recorded;
        })
      : await record(deps.db);
    if (recorded) await keepImagesOfPrinted(deps, piece, images, log);
    log.info(
      { provider: deps.printProvider.name, providerId: receipt.providerId },
      "piece handed to the printer",
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof PrintRejectedError) {
      await moveQueuedPiece(deps.db, piece, { status: "failed" }, reason, deps.clock.now());
      await failJobWithoutRetry(deps.db, context.jobId, reason, deps.clock.now());
      log.warn({ reason }, "the print provider rejected the piece");
      return;
    }
    // A try past its timeout (its job given up already) may have reached the printer: giveUpCard decides.
    if (context.attempt >= processPieceJob.maxAttempts && !context.signal.aborted) {
      await moveQueuedPiece(deps.db, piece, { status: "failed" }, reason, deps.clock.now());
    }
    throw error;
  }
}

export function geocodePieceHandler(deps: Pick<PipelineDeps, "db" | "logger" | "geocoder">): RegisteredJob {
  return handleJob(geocodePieceJob, async (payload) => {
    const piece = await loadPiece(deps.db, payload.org_id, payload.piece_id);
    if (!piece || piece.latitude !== null) return;
    await recordGeocode(deps.db, piece, await deps.geocoder.geocode(piece.address));
  });
}
