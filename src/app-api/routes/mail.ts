import { gunzipSync } from "node:zlib";
import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createExpiringCache } from "../../db/expiring-cache.ts";
import { decodeKeysetCursor } from "../../db/keyset-cursor.ts";
import { notFound } from "../../errors.ts";
import { enforceRateLimit } from "../../limits/enforce-rate-limit.ts";
import { addressCheckBeforePrint } from "../../mail-safety/settings.ts";
import {
  getMailPiece,
  listMailPieces,
  MailPieceDetail,
  MailPiecePage,
  PieceStatusSchema,
} from "../../pieces/app-mail.ts";
import {
  CORRECTED_ADDRESS_MAX_LENGTH,
  RECIPIENT_NAME_MAX_LENGTH,
  resendToCorrectedAddress,
} from "../../pieces/corrected-resend.ts";
import { checkCardImage } from "../../pieces/current-card-image.ts";
import { findPieceImage, imageName } from "../../pieces/piece-images.ts";
import type { ProofDeps } from "../../pieces/piece-proof.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const PAGE_SIZE = 50;
/** A printed card's image never changes: the browser keeps it (the session's own, never a shared cache). */
const PRINTED_CARD_CACHING = "private, max-age=31536000, immutable";
/** A waiting card follows the organization's profile: a minute's reuse while a list is scrolled. */
const WAITING_CARD_CACHING = "private, max-age=60";
/** Drawing a card is CPU work: a page of thumbnails is 50 draws, so the bound is per org and generous. */
const PIECE_PROOFS_PER_MINUTE = 300;
const PIECE_PROOF_DRAWINGS = {
  bucket: "app-piece-proofs",
  limit: PIECE_PROOFS_PER_MINUTE,
  windowSeconds: 60,
};

const Day = Type.String({ format: "date", description: "A UTC day, YYYY-MM-DD (inclusive)." });

const PieceParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

const ResendBody = Type.Object(
  {
    address: Type.String({
      maxLength: CORRECTED_ADDRESS_MAX_LENGTH,
      description: "The corrected address as the card prints it: street, city, state and ZIP on one line.",
    }),
    recipient_name: Type.Optional(
      Type.String({
        maxLength: RECIPIENT_NAME_MAX_LENGTH,
        description: "The name the card prints; the undeliverable card's when absent.",
      }),
    ),
  },
  { additionalProperties: false },
);

const ResentCard = Type.Object(
  {
    id: Type.String({ format: "uuid", description: "The new card, queued: its page says where it is." }),
    address: Type.String(),
    recipient_name: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

/**
 * A card image's file: `front.png` a side's list thumbnail, `front.svg` its preview on the card's page
 * (render.ts renderSidePreview).
 */
const CARD_IMAGE_FILES = {
  "front.png": { side: "front", size: "thumbnail" },
  "back.png": { side: "back", size: "thumbnail" },
  "front.svg": { side: "front", size: "full" },
  "back.svg": { side: "back", size: "full" },
} as const;
type CardImageFile = keyof typeof CARD_IMAGE_FILES;

/**
 * A preview is our own drawing, yet served like any SVG: nothing in it may run or load, even opened on
 * its own in a tab (an <img> runs no script anyway).
 */
const PREVIEW_CSP = "default-src 'none'; img-src data:; sandbox";

/** Sends a kept or drawn image: a thumbnail's PNG, or a preview's gzipped SVG, unzipped only for a client that cannot take gzip. */
function sendCardImage(
  request: FastifyRequest,
  reply: FastifyReply,
  size: "thumbnail" | "full",
  bytes: Buffer,
) {
  if (size === "thumbnail") return reply.type("image/png").send(bytes);
  reply
    .type("image/svg+xml")
    .header("content-security-policy", PREVIEW_CSP)
    .header("vary", "accept-encoding");
  if (!/\bgzip\b/.test(request.headers["accept-encoding"] ?? "")) return reply.send(gunzipSync(bytes));
  return reply.header("content-encoding", "gzip").send(bytes);
}

/** The Mail screen: the org's pieces and one piece's page, read through the same tables the pipeline writes. */
export function registerMailRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = ctx;
  const proofDeps: ProofDeps = {
    db,
    imagery: ctx.imagery,
    renderer: ctx.renderer,
    publicBaseUrl: config.publicBaseUrl,
  };
  // Requests for an image being drawn wait for that drawing (a list's first look asks for each
  // thumbnail once per tab). Keyed by what is drawn, so an entry is never out of date; kept only
  // briefly, as the database keeps every image drawn.
  const drawings = createExpiringCache<Buffer>({ clock: ctx.clock, ttlMs: 60_000, maxEntries: 100 });

  r.get(
    "/pieces",
    {
      schema: {
        operationId: "listPieces",
        summary: "The organization's mail pieces, newest first, filtered, a keyset page at a time (Mail)",
        tags: ["Mail"],
        querystring: Type.Object(
          {
            automation_id: Type.Optional(Type.String({ format: "uuid" })),
            mailing: Type.Optional(
              Type.Literal("reactivation", {
                description:
                  "reactivation: only the cards of reactivation mailings (sent from imported past jobs; they have no automation).",
              }),
            ),
            status: Type.Optional(PieceStatusSchema),
            from: Type.Optional(Day),
            to: Type.Optional(Day),
            cursor: Type.Optional(
              Type.String({ maxLength: 200, description: "next_cursor of the previous page." }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: MailPiecePage },
      },
    },
    async (request) => {
      const { cursor, automation_id, mailing, status, from, to } = request.query;
      return listMailPieces(
        db,
        sessionOf(request).orgId,
        { automationId: automation_id, reactivation: mailing === "reactivation", status, from, to },
        cursor ? decodeKeysetCursor(cursor) : undefined,
        PAGE_SIZE,
      );
    },
  );

  r.get(
    "/pieces/:id",
    {
      schema: {
        operationId: "getPiece",
        summary: "One piece: proofs, landing page, its leads and conversions, and its tracking timeline",
        tags: ["Mail"],
        params: PieceParams,
        response: { 200: MailPieceDetail },
      },
    },
    async (request) => {
      const piece = await getMailPiece(db, sessionOf(request).orgId, request.params.id, {
        publicBaseUrl: config.publicBaseUrl,
        ttlDays: config.landingPageTtlDays,
        now: clock.now(),
      });
      if (!piece) throw notFound("piece not found");
      return piece;
    },
  );

  r.post(
    "/pieces/:id/resend",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "resendPiece",
        summary:
          "Sends an undeliverable card again to a corrected address (owners only: it spends money): a new card of the same automation, through approval, hold and caps like any other (409 not_resendable for a card that is not undeliverable, a follow-up, or one corrected already; 422 when the check before print would refuse the address too)",
        tags: ["Mail"],
        params: PieceParams,
        body: ResendBody,
        response: { 201: ResentCard },
      },
    },
    async (request, reply) => {
      const { orgId } = sessionOf(request);
      const resent = await resendToCorrectedAddress(
        { db, clock },
        orgId,
        request.params.id,
        { address: request.body.address, recipientName: request.body.recipient_name },
        await addressCheckBeforePrint(db, config.addressVerifier, orgId),
      );
      return reply.code(201).send(resent);
    },
  );

  r.get(
    "/pieces/:id/proof/:side",
    {
      schema: {
        hide: true,
        params: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 100 }),
          side: Type.Union(Object.keys(CARD_IMAGE_FILES).map((file) => Type.Literal(file as CardImageFile))),
        }),
      },
    },
    async (request, reply) => {
      const { orgId } = sessionOf(request);
      const { id } = request.params;
      const { side, size } = CARD_IMAGE_FILES[request.params.side];
      const found = await findPieceImage(db, orgId, id, side, size);
      if (!found) throw notFound("piece not found");
      const caching = found.printed ? PRINTED_CARD_CACHING : WAITING_CARD_CACHING;
      const image = { orgId, pieceId: id, side, size } as const;
      const check = await checkCardImage(proofDeps, image, {
        printed: found.printed,
        keptKey: found.kept?.cardKey,
      });
      reply.header("cache-control", caching);
      if (check.current) return sendCardImage(request, reply, size, found.kept!.bytes);
      const drawing = `${orgId}:${id}:${imageName(side, size)}:${check.cardKey}`;
      if (!drawings.cached(drawing)) {
        await enforceRateLimit(
          ctx.limiter,
          PIECE_PROOF_DRAWINGS,
          orgId,
          "too many card images; wait a moment",
        );
      }
      return sendCardImage(request, reply, size, await drawings.get(drawing, check.drawAndKeep));
    },
  );
}
