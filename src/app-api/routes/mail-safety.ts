import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError, notFound } from "../../errors.ts";
import {
  approveOrgPieces,
  automationsAskingApproval,
  cancelOrgAutomationWaiting,
  cancelOrgPiece,
  cancelOrgPieces,
  capUsageThisMonth,
  cardVersionsOf,
  countAwaitingApproval,
  getOrgAutomationSafety,
  updateOrgAutomationSafety,
} from "../../mail-safety/org-controls.ts";
import { getPieceSafetyView } from "../../mail-safety/piece-controls.ts";
import {
  AddressVerificationLevel,
  MailingHoldMinutes,
  updateOrgMailSafety,
} from "../../mail-safety/settings.ts";
import { listMailPieces, MailPieceListItem, versionedProofUrl } from "../../pieces/app-mail.ts";
import type { AppApiContext } from "../context.ts";
import { sessionOf } from "../session-guard.ts";

/** The approval queue shows this many cards at once; approving them shows the next. */
const QUEUE_SIZE = 100;

const Cap = Type.Union([Type.Integer({ minimum: 0, maximum: 100_000_000 }), Type.Null()]);
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const PieceIdsBody = Type.Object(
  {
    piece_ids: Type.Array(Type.String({ format: "uuid" }), {
      minItems: 1,
      maxItems: 1000,
      description: "The cards chosen (the queue's selection, or every card it shows).",
    }),
  },
  { additionalProperties: false },
);

const CardVersion = Type.String({
  pattern: "^[0-9a-f]{32}$",
  description:
    "Which card the proofs show (a fingerprint of the text and design it would print now). Sent back with an approval, it approves only that card: one edited since stays waiting.",
});

const ApproveBody = Type.Object(
  {
    piece_ids: PieceIdsBody.properties.piece_ids,
    card_versions: Type.Optional(
      Type.Record(Type.String({ pattern: "^[0-9a-fA-F-]{36}$" }), CardVersion, {
        description:
          "The card_version each chosen card was shown with (the approvals list's), by piece id; a card edited since is not approved and is answered in changed_piece_ids.",
        maxProperties: 1000,
      }),
    ),
  },
  { additionalProperties: false },
);

const ApproveAnswer = Type.Object(
  {
    piece_ids: Type.Array(Type.String({ format: "uuid" }), { description: "The cards approved." }),
    changed_piece_ids: Type.Array(Type.String({ format: "uuid" }), {
      description:
        "Chosen cards whose card changed since it was shown (card_versions): still waiting, to be looked at again.",
    }),
  },
  { additionalProperties: false },
);
const PieceIds = Type.Object(
  { piece_ids: Type.Array(Type.String({ format: "uuid" })) },
  { additionalProperties: false },
);

const AutomationSafety = Type.Object(
  {
    automation_id: Type.String({ format: "uuid" }),
    hold_minutes: Type.Integer({ description: "Cards wait this long before print and can be cancelled." }),
    approval_required: Type.Boolean(),
    auto_approve_after: Type.Union([Type.Integer(), Type.Null()], {
      description: "Switch to automatic once this many cards were approved; null: never.",
    }),
    approved_count: Type.Integer(),
    monthly_card_cap: Cap,
    monthly_spend_cap_cents: Cap,
    paused_by_cap: Type.Boolean({
      description: "Cards of this automation wait because a monthly cap is reached.",
    }),
  },
  { additionalProperties: false },
);

const AutomationSafetyPatch = Type.Object(
  {
    hold_minutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 24 * 60 })),
    approval_required: Type.Optional(Type.Boolean()),
    auto_approve_after: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()]),
    ),
    monthly_card_cap: Type.Optional(Cap),
    monthly_spend_cap_cents: Type.Optional(Cap),
  },
  { additionalProperties: false, minProperties: 1 },
);

const CapUse = {
  monthly_card_cap: Cap,
  monthly_spend_cap_cents: Cap,
  cards: Type.Integer({ description: "Cards handed to print this month." }),
  cards_left: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "How many more cards this month's caps let through at today's cost per card, as the claim at print judges them; null when no cap binds.",
  }),
  cents: Type.Integer({ description: "Their cost at the profile's cost per card." }),
};

const MailSafetyOverview = Type.Object(
  {
    month: Type.String({ format: "date", description: "The UTC month counted (its first day)." }),
    frequency_cap_days: Type.Integer({ description: "At most one card per home in this many days; 0: off." }),
    address_verification: AddressVerificationLevel,
    mailing_hold_minutes: MailingHoldMinutes,
    organization: Type.Object(CapUse, { additionalProperties: false }),
    automations: Type.Array(
      Type.Object(
        {
          automation_id: Type.String({ format: "uuid" }),
          name: Type.String(),
          paused_by_cap: Type.Boolean(),
          ...CapUse,
        },
        { additionalProperties: false },
      ),
      { description: "Automations with a cap of their own or cards this month." },
    ),
    mailings: Type.Object(
      {
        cards: Type.Integer({
          description: "Cards of mailings to past customers handed to print this month.",
        }),
        cents: Type.Integer({ description: "Their cost." }),
      },
      {
        additionalProperties: false,
        description:
          "Mailings have no automation: their cards count against the organization's caps only, so the organization's count is the automations' and these.",
      },
    ),
    awaiting_approval: Type.Integer(),
    address_checker: Type.Union([Type.Literal("offline"), Type.Literal("usps")], {
      description:
        "Who checks addresses before print on this deployment: `offline` (Porchlight's own checks of the ZIP, state, city and house number) or `usps` (USPS address verification through Lob, ADDRESS_VERIFIER=lob).",
    }),
  },
  { additionalProperties: false },
);

const OrgSafetyPatch = Type.Object(
  {
    frequency_cap_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
    monthly_card_cap: Type.Optional(Cap),
    monthly_spend_cap_cents: Type.Optional(Cap),
    address_verification: Type.Optional(AddressVerificationLevel),
    mailing_hold_minutes: Type.Optional(MailingHoldMinutes),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** A card in the approval queue: a Mail list item's who and where, with both proofs. */
const ApprovalCard = Type.Object(
  {
    ...Type.Pick(MailPieceListItem, [
      "id",
      "recipient_name",
      "address",
      "automation_id",
      "automation_name",
      "test_card",
    ]).properties,
    created_at: Type.String({ format: "date-time" }),
    front_url: Type.String(),
    back_url: Type.String(),
    card_version: CardVersion,
  },
  { additionalProperties: false },
);

const PieceSafety = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    status: Type.String(),
    status_reason: Nullable(Type.String()),
    cancelled_at: Nullable(Type.String({ format: "date-time" })),
    cancelled_by: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

/** Who acted, as the piece records it: the member's name, else their email. */
const actorOf = (request: FastifyRequest) => {
  const session = sessionOf(request);
  return session.userName?.trim() || session.email;
};

/**
 * The mail safety controls of the app (issue 29): an automation's hold window, approval mode and
 * caps; the organization's caps and frequency cap (owners); the approval queue; cancelling cards
 * that wait before print. Any member approves and cancels, as any member edits automations; only
 * owners loosen an automation's safety (approval off, a shorter hold, a higher or no cap).
 */
export function registerMailSafetyRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = ctx;
  const safetyView = ({ org_id: _org, ...safety }: Awaited<ReturnType<typeof getOrgAutomationSafety>>) =>
    safety;
  const overview = async (orgId: string) => ({
    ...(await capUsageThisMonth(db, orgId, clock.now())),
    awaiting_approval: await countAwaitingApproval(db, orgId),
    address_checker: ctx.config.addressVerifier === "lob" ? ("usps" as const) : ("offline" as const),
  });

  r.get(
    "/automations/:id/safety",
    {
      schema: {
        operationId: "getAutomationSafety",
        summary: "An automation's hold window, approval mode and monthly caps",
        tags: ["Mail safety"],
        params: IdParams,
        response: { 200: AutomationSafety },
      },
    },
    async (request) =>
      safetyView(await getOrgAutomationSafety(db, sessionOf(request).orgId, request.params.id, clock.now())),
  );

  r.patch(
    "/automations/:id/safety",
    {
      schema: {
        operationId: "updateAutomationSafety",
        summary:
          "Changes an automation's hold window, approval mode or caps (a raised cap releases capped cards); only owners may switch approval off, shorten the hold or raise or remove a cap",
        tags: ["Mail safety"],
        params: IdParams,
        body: AutomationSafetyPatch,
        response: { 200: AutomationSafety },
      },
    },
    async (request) =>
      safetyView(
        await updateOrgAutomationSafety(
          db,
          sessionOf(request).orgId,
          request.params.id,
          request.body,
          clock.now(),
          { isOwner: sessionOf(request).role === "owner" },
        ),
      ),
  );

  r.post(
    "/automations/:id/waiting-pieces/cancel",
    {
      schema: {
        operationId: "cancelAutomationWaitingPieces",
        summary:
          "Cancels every card of the automation that waits before print (held, awaiting approval, capped)",
        tags: ["Mail safety"],
        params: IdParams,
        response: { 200: PieceIds },
      },
    },
    async (request) => ({
      piece_ids: await cancelOrgAutomationWaiting(
        db,
        sessionOf(request).orgId,
        request.params.id,
        actorOf(request),
        clock.now(),
      ),
    }),
  );

  r.get(
    "/mail-safety",
    {
      schema: {
        operationId: "getMailSafety",
        summary: "The organization's caps, this month's use of them, and how many cards await approval",
        tags: ["Mail safety"],
        response: { 200: MailSafetyOverview },
      },
    },
    async (request) => overview(sessionOf(request).orgId),
  );

  r.patch(
    "/mail-safety",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "updateMailSafety",
        summary:
          "Sets the organization's monthly caps (null: none), frequency cap in days (0: off), address verification level and hold window for mailings; owners only",
        tags: ["Mail safety"],
        body: OrgSafetyPatch,
        response: { 200: MailSafetyOverview },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      await updateOrgMailSafety(db, orgId, request.body, clock.now());
      return overview(orgId);
    },
  );

  r.get(
    "/approvals",
    {
      schema: {
        operationId: "listApprovals",
        summary: `Cards awaiting approval, newest first (at most ${QUEUE_SIZE}), with their proofs`,
        tags: ["Mail safety"],
        response: {
          200: Type.Object(
            {
              pieces: Type.Array(ApprovalCard),
              total: Type.Integer(),
              automations_asking_approval: Type.Array(
                Type.Object(
                  { automation_id: Type.String({ format: "uuid" }), name: Type.String() },
                  { additionalProperties: false },
                ),
                {
                  description:
                    "The automations that are on (enabled) and whose new cards wait here for approval (approval_required), by name; empty when none does.",
                },
              ),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const { pieces } = await listMailPieces(
        db,
        orgId,
        { status: "awaiting_approval" },
        undefined,
        QUEUE_SIZE,
      );
      const versions = await cardVersionsOf(
        db,
        orgId,
        pieces.map((piece) => piece.id),
      );
      return {
        pieces: pieces.map((piece) => {
          const version = versions.get(piece.id) ?? "";
          return {
            id: piece.id,
            recipient_name: piece.recipient_name,
            address: piece.address,
            automation_id: piece.automation_id,
            automation_name: piece.automation_name,
            test_card: piece.test_card,
            created_at: piece.created_at,
            front_url: versionedProofUrl(piece.id, "front", version),
            back_url: versionedProofUrl(piece.id, "back", version),
            card_version: version,
          };
        }),
        total: await countAwaitingApproval(db, orgId),
        automations_asking_approval: await automationsAskingApproval(db, orgId),
      };
    },
  );

  r.post(
    "/approvals/approve",
    {
      schema: {
        operationId: "approvePieces",
        summary:
          "Approves the chosen cards that await approval; they go on to print (with card_versions, only the cards as they were shown)",
        tags: ["Mail safety"],
        body: ApproveBody,
        response: { 200: ApproveAnswer },
      },
    },
    async (request) => {
      const { approved, changed } = await approveOrgPieces(
        db,
        sessionOf(request).orgId,
        request.body.piece_ids,
        actorOf(request),
        clock.now(),
        request.body.card_versions,
      );
      return { piece_ids: approved, changed_piece_ids: changed };
    },
  );

  r.post(
    "/approvals/cancel",
    {
      schema: {
        operationId: "cancelPieces",
        summary: "Cancels the chosen cards that still wait before print; they never print",
        tags: ["Mail safety"],
        body: PieceIdsBody,
        response: { 200: PieceIds },
      },
    },
    async (request) => ({
      piece_ids: await cancelOrgPieces(
        db,
        sessionOf(request).orgId,
        request.body.piece_ids,
        actorOf(request),
        clock.now(),
      ),
    }),
  );

  r.post(
    "/pieces/:id/cancel",
    {
      schema: {
        operationId: "cancelPiece",
        summary: "Cancels one card that waits before print (409 not_cancellable once it went to print)",
        tags: ["Mail safety"],
        params: IdParams,
        response: { 200: PieceSafety },
      },
    },
    async (request) => {
      const piece = await cancelOrgPiece(
        db,
        sessionOf(request).orgId,
        request.params.id,
        actorOf(request),
        clock.now(),
      );
      return pieceSafety(piece);
    },
  );

  r.post(
    "/pieces/:id/approve",
    {
      schema: {
        operationId: "approvePiece",
        summary:
          "Approves one card awaiting approval (409 not_awaiting_approval otherwise; 409 card_changed when card_version names a card edited since)",
        tags: ["Mail safety"],
        params: IdParams,
        querystring: Type.Object(
          { card_version: Type.Optional(CardVersion) },
          { additionalProperties: false },
        ),
        response: { 200: PieceSafety },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const { id } = request.params;
      const seen = request.query.card_version;
      const { approved, changed } = await approveOrgPieces(
        db,
        orgId,
        [id],
        actorOf(request),
        clock.now(),
        seen === undefined ? undefined : { [id.toLowerCase()]: seen },
      );
      if (changed.length > 0) throw cardChanged();
      const piece = await getOwnPieceSafety(orgId, id);
      if (approved.length === 0) throw notAwaitingApproval(piece.status);
      return pieceSafety(piece);
    },
  );

  async function getOwnPieceSafety(orgId: string, pieceId: string) {
    const piece = /^[0-9a-f-]{36}$/i.test(pieceId)
      ? await getPieceSafetyView(db, pieceId).catch(() => null)
      : null;
    if (!piece || piece.org_id !== orgId) throw notFound("piece not found");
    return piece;
  }
}

const pieceSafety = (piece: Awaited<ReturnType<typeof getPieceSafetyView>>) => ({
  id: piece.id,
  status: piece.status,
  status_reason: piece.status_reason,
  cancelled_at: piece.cancelled_at,
  cancelled_by: piece.cancelled_by,
});

const cardChanged = () =>
  new AppError(
    409,
    "card_changed",
    "The card was edited after this proof was drawn; look at the new proof and approve again.",
  );

const notAwaitingApproval = (status: string) =>
  new AppError(
    409,
    "not_awaiting_approval",
    `the card is ${status.replaceAll("_", " ")}, not awaiting approval`,
  );
