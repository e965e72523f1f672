import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { createExpiringCache } from "../../db/expiring-cache.ts";
import { decodeKeysetCursor } from "../../db/keyset-cursor.ts";
import { notFound, rateLimited } from "../../errors.ts";
import { getMailPiece, listMailPieces, MAIL_PIECE_STATUSES, orgOwnsPiece } from "../../pieces/app-mail.ts";
import { renderProof } from "../../pieces/piece-proof.ts";
import { splitProofSheet } from "../../render/proof-sides.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

const PAGE_SIZE = 50;
const THUMBNAIL_WIDTH = 320;
/** Drawing a card is CPU work: a page of thumbnails is 50 draws, so the bound is per org and generous. */
const PIECE_PROOFS_PER_MINUTE = 300;

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Day = Type.String({ format: "date", description: "A UTC day, YYYY-MM-DD (inclusive)." });
const PieceStatus = Type.Union(MAIL_PIECE_STATUSES.map((status) => Type.Literal(status)));

const pieceFields = {
  id: Type.String({ format: "uuid" }),
  status: Type.String({ description: `One of ${MAIL_PIECE_STATUSES.join(", ")}.` }),
  status_reason: Nullable(
    Type.String({
      description:
        "Why a piece was not mailed (suppressed, failed, skipped, cancelled, undeliverable) or waits (held, capped, awaiting approval), in words; null otherwise.",
    }),
  ),
  recipient_name: Nullable(Type.String()),
  address: Type.String(),
  automation_id: Nullable(Type.String({ format: "uuid" })),
  automation_name: Nullable(Type.String()),
  campaign_id: Type.String({ format: "uuid" }),
  campaign_name: Type.String(),
  created_at: Type.String({ format: "date-time", description: "When the piece was queued." }),
  mailed_at: Nullable(Type.String({ format: "date-time" })),
  status_updated_at: Nullable(Type.String({ format: "date-time" })),
  thumbnail_url: Type.String({
    description: "A small PNG of the card's front (same-origin, session cookie; drawn on demand).",
  }),
};

const MailPiece = Type.Object(pieceFields, { additionalProperties: false });

const TimelineStep = Type.Object(
  {
    step: Type.String({
      description:
        "queued, rendered, submitted, mailed, in_transit, delivered or returned; or the stop (suppressed, failed, skipped, cancelled, undeliverable, held, capped, awaiting_approval).",
    }),
    at: Nullable(Type.String({ format: "date-time" })),
    estimated: Type.Boolean({
      description:
        "Reached without a recorded event (e.g. the print provider sent none): `at` is the next known time.",
    }),
    reached: Type.Boolean(),
    detail: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

const MailPieceDetail = Type.Object(
  {
    ...pieceFields,
    front_url: Type.String({ description: "PNG of the card's front (same-origin, session cookie)." }),
    back_url: Type.String({ description: "PNG of the card's back." }),
    landing_url: Type.String(),
    provider: Nullable(Type.String()),
    provider_status: Nullable(Type.String()),
    leads: Type.Array(
      Type.Object(
        {
          id: Type.String({ format: "uuid" }),
          source: Type.String(),
          name: Type.String(),
          email: Type.String(),
          phone: Type.String(),
          attribution_type: Nullable(Type.String()),
          received_at: Type.String({ format: "date-time" }),
        },
        { additionalProperties: false },
      ),
    ),
    conversions: Type.Array(
      Type.Object(
        {
          id: Type.String({ format: "uuid" }),
          deal_id: Nullable(Type.String()),
          deal_name: Nullable(Type.String()),
          amount: Type.Union([Type.Number(), Type.Null()]),
          close_date: Nullable(Type.String({ format: "date-time" })),
          attribution_type: Type.String(),
          match_confidence: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    timeline: Type.Array(TimelineStep),
  },
  { additionalProperties: false },
);

const PieceParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** The Mail screen: the org's pieces and one piece's page, read through the same tables the pipeline writes. */
export function registerMailRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = ctx;
  const proofDeps = {
    db,
    imagery: ctx.imagery,
    renderer: ctx.renderer,
    publicBaseUrl: config.publicBaseUrl,
  };
  // A proof sheet is drawn once for both of its sides; thumbnails are small and kept longer.
  const sides = createExpiringCache<[Buffer, Buffer]>({ clock: ctx.clock, ttlMs: 60_000, maxEntries: 20 });
  const thumbnails = createExpiringCache<[Buffer, Buffer]>({
    clock: ctx.clock,
    ttlMs: 10 * 60_000,
    maxEntries: 500,
  });

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
            status: Type.Optional(PieceStatus),
            from: Type.Optional(Day),
            to: Type.Optional(Day),
            cursor: Type.Optional(
              Type.String({ maxLength: 200, description: "next_cursor of the previous page." }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              pieces: Type.Array(MailPiece),
              next_cursor: Nullable(Type.String({ description: "null on the last page." })),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const { cursor, automation_id, status, from, to } = request.query;
      return listMailPieces(
        db,
        sessionOf(request).orgId,
        { automationId: automation_id, status, from, to },
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
      const piece = await getMailPiece(db, sessionOf(request).orgId, request.params.id, config.publicBaseUrl);
      if (!piece) throw notFound("piece not found");
      return piece;
    },
  );

  r.get(
    "/pieces/:id/proof/:side",
    {
      schema: {
        hide: true,
        params: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 100 }),
          side: Type.Union([Type.Literal("front.png"), Type.Literal("back.png")]),
        }),
        querystring: Type.Object(
          { size: Type.Optional(Type.Union([Type.Literal("thumbnail"), Type.Literal("full")])) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { orgId } = sessionOf(request);
      const { id, side } = request.params;
      if (!(await orgOwnsPiece(db, orgId, id))) throw notFound("piece not found");
      const thumbnail = request.query.size === "thumbnail";
      const cache = thumbnail ? thumbnails : sides;
      const key = `${orgId}:${id}`;
      if (!cache.cached(key)) {
        const decision = await ctx.limiter.hit("app-piece-proofs", orgId, PIECE_PROOFS_PER_MINUTE, 60);
        if (!decision.allowed)
          throw rateLimited(decision.secondsToWindowEnd, "too many card images; wait a moment");
      }
      const [front, back] = await cache.get(key, async () =>
        splitProofSheet(await renderProof(proofDeps, id, "png"), thumbnail ? THUMBNAIL_WIDTH : undefined),
      );
      return reply.type("image/png").send(side === "front.png" ? front : back);
    },
  );
}
