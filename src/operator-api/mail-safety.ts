import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { AppError } from "../errors.ts";
import { ErrorBody, LimitParam } from "../http/schemas.ts";
import { listDoNotMail } from "../mail-safety/do-not-mail.ts";
import {
  approvePieces,
  cancelPiece,
  cancelWaitingPieces,
  getPieceSafetyView,
  listWaitingPieces,
} from "../mail-safety/piece-controls.ts";
import {
  AddressVerificationLevel,
  getAutomationMailSafety,
  getOrgMailSafety,
  MailingHoldMinutes,
  updateAutomationMailSafety,
  updateOrgMailSafety,
} from "../mail-safety/settings.ts";
import { WAITING_STATUSES } from "../pieces/piece-updates.ts";
import type { Services } from "../services.ts";
import { IdParams, OrgParams } from "./orgs.ts";

const Cap = Type.Union([Type.Integer({ minimum: 0, maximum: 100_000_000 }), Type.Null()]);
const Timestamp = Type.Union([Type.String({ format: "date-time" }), Type.Null()]);
const Uuid = Type.String({ format: "uuid" });

const OrgMailSafety = Type.Object({
  org_id: Uuid,
  frequency_cap_days: Type.Integer(),
  monthly_card_cap: Cap,
  monthly_spend_cap_cents: Cap,
  address_verification: AddressVerificationLevel,
  mailing_hold_minutes: MailingHoldMinutes,
});

const OrgMailSafetyPatch = Type.Object(
  {
    frequency_cap_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650 })),
    monthly_card_cap: Type.Optional(Cap),
    monthly_spend_cap_cents: Type.Optional(Cap),
    address_verification: Type.Optional(AddressVerificationLevel),
    mailing_hold_minutes: Type.Optional(MailingHoldMinutes),
  },
  { additionalProperties: false, minProperties: 1 },
);

const AutomationMailSafety = Type.Object({
  automation_id: Uuid,
  org_id: Uuid,
  hold_minutes: Type.Integer(),
  approval_required: Type.Boolean(),
  auto_approve_after: Type.Union([Type.Integer(), Type.Null()]),
  approved_count: Type.Integer(),
  monthly_card_cap: Cap,
  monthly_spend_cap_cents: Cap,
  paused_by_cap: Type.Boolean(),
});

const AutomationMailSafetyPatch = Type.Object(
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

const PieceSafetyView = Type.Object({
  id: Uuid,
  org_id: Uuid,
  automation_id: Type.Union([Uuid, Type.Null()]),
  status: Type.String(),
  status_reason: Type.Union([Type.String(), Type.Null()]),
  earlier_piece_id: Type.Union([Uuid, Type.Null()]),
  hold_until: Timestamp,
  approved_at: Timestamp,
  approved_by: Type.Union([Type.String(), Type.Null()]),
  cancelled_at: Timestamp,
  cancelled_by: Type.Union([Type.String(), Type.Null()]),
  mailed_at: Timestamp,
  created_at: Type.String({ format: "date-time" }),
  sequence_step: Type.Union([Type.Integer(), Type.Null()]),
  scheduled_for: Timestamp,
});

/** Who acts (recorded on the piece): the operator's name or email; "operator" when not given. */
const ActorBody = Type.Object(
  { actor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  { additionalProperties: false },
);

const ApprovalBody = Type.Object(
  {
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    piece_ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000 })),
  },
  { additionalProperties: false },
);

const PieceIds = Type.Object({ piece_ids: Type.Array(Uuid) });
const LimitQuery = { limit: LimitParam(1000) };

const actorOf = (body: { actor?: string } | undefined) => body?.actor?.trim() || "operator";

/** Operator controls of the mail safety rules (issue 29): settings, the do-not-mail list, cancel, approve. */
export function registerAdminMailSafetyRoutes(app: FastifyInstance, services: Services): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = services;
  const errors = { 401: ErrorBody, 404: ErrorBody, 422: ErrorBody };

  r.get(
    "/orgs/:org_id/mail-safety",
    {
      schema: {
        hide: true,
        operationId: "adminGetOrgMailSafety",
        summary: "The org's frequency cap and monthly caps",
        params: OrgParams,
        response: { 200: OrgMailSafety, ...errors },
      },
    },
    async (request) => getOrgMailSafety(db, request.params.org_id),
  );

  r.patch(
    "/orgs/:org_id/mail-safety",
    {
      schema: {
        hide: true,
        operationId: "adminUpdateOrgMailSafety",
        summary: "Set the org's frequency cap (days, 0 = off) or monthly caps (null = none)",
        params: OrgParams,
        body: OrgMailSafetyPatch,
        response: { 200: OrgMailSafety, ...errors },
      },
    },
    async (request) => updateOrgMailSafety(db, request.params.org_id, request.body, clock.now()),
  );

  r.get(
    "/orgs/:org_id/do-not-mail",
    {
      schema: {
        hide: true,
        operationId: "adminListDoNotMail",
        summary: "The org's do-not-mail list: homes that opted out, when and from which piece, newest first",
        params: OrgParams,
        querystring: Type.Object(LimitQuery, { additionalProperties: false }),
        response: {
          200: Type.Object({
            do_not_mail: Type.Array(
              Type.Object({
                normalized_address: Type.String(),
                reason: Type.Literal("opted_out"),
                piece_id: Type.Union([Uuid, Type.Null()]),
                created_at: Type.String({ format: "date-time" }),
              }),
            ),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      return {
        do_not_mail: await listDoNotMail(db, request.params.org_id, Number(request.query.limit ?? 100)),
      };
    },
  );

  r.get(
    "/automations/:id/mail-safety",
    {
      schema: {
        hide: true,
        operationId: "adminGetAutomationMailSafety",
        summary: "The automation's hold window, approval mode and monthly caps",
        params: IdParams,
        response: { 200: AutomationMailSafety, ...errors },
      },
    },
    async (request) => getAutomationMailSafety(db, request.params.id, clock.now()),
  );

  r.patch(
    "/automations/:id/mail-safety",
    {
      schema: {
        hide: true,
        operationId: "adminUpdateAutomationMailSafety",
        summary: "Set the automation's hold window (minutes), approval mode, auto-approval or monthly caps",
        params: IdParams,
        body: AutomationMailSafetyPatch,
        response: { 200: AutomationMailSafety, ...errors },
      },
    },
    async (request) => updateAutomationMailSafety(db, request.params.id, request.body, clock.now()),
  );

  r.get(
    "/automations/:id/waiting-pieces",
    {
      schema: {
        hide: true,
        operationId: "adminListWaitingPieces",
        summary:
          "The automation's pieces waiting before print (held, awaiting approval, capped), oldest first",
        params: IdParams,
        querystring: Type.Object(
          {
            status: Type.Optional(Type.Union(WAITING_STATUSES.map((status) => Type.Literal(status)))),
            ...LimitQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ pieces: Type.Array(PieceSafetyView) }), ...errors },
      },
    },
    async (request) => ({
      pieces: await listWaitingPieces(
        db,
        request.params.id,
        request.query.status,
        Number(request.query.limit ?? 100),
      ),
    }),
  );

  r.post(
    "/automations/:id/waiting-pieces/cancel",
    {
      config: { bodyOptional: true },
      schema: {
        hide: true,
        operationId: "adminCancelWaitingPieces",
        summary: "Cancel every piece of the automation waiting before print; they never print",
        params: IdParams,
        body: ActorBody,
        response: { 200: PieceIds, ...errors },
      },
    },
    async (request) => ({
      piece_ids: await cancelWaitingPieces(db, request.params.id, actorOf(request.body), clock.now()),
    }),
  );

  r.post(
    "/automations/:id/approvals",
    {
      config: { bodyOptional: true },
      schema: {
        hide: true,
        operationId: "adminApproveAutomationPieces",
        summary: "Approve the automation's pieces awaiting approval (the listed ones, or all)",
        params: IdParams,
        body: ApprovalBody,
        response: { 200: PieceIds, ...errors },
      },
    },
    async (request) => ({
      piece_ids: await approvePieces(
        db,
        { automationId: request.params.id, pieceIds: request.body.piece_ids },
        actorOf(request.body),
        clock.now(),
      ),
    }),
  );

  r.get(
    "/pieces/:id",
    {
      schema: {
        hide: true,
        operationId: "adminGetPiece",
        summary: "A piece's status and its way through the mail safety rules",
        params: IdParams,
        response: { 200: PieceSafetyView, ...errors },
      },
    },
    async (request) => getPieceSafetyView(db, request.params.id),
  );

  r.post(
    "/pieces/:id/cancel",
    {
      config: { bodyOptional: true },
      schema: {
        hide: true,
        operationId: "adminCancelPiece",
        summary: "Cancel a piece waiting before print (held, awaiting approval, capped); it never prints",
        params: IdParams,
        body: ActorBody,
        response: { 200: PieceSafetyView, 409: ErrorBody, ...errors },
      },
    },
    async (request) => cancelPiece(db, request.params.id, actorOf(request.body), clock.now()),
  );

  r.post(
    "/pieces/:id/approve",
    {
      config: { bodyOptional: true },
      schema: {
        hide: true,
        operationId: "adminApprovePiece",
        summary: "Approve a piece awaiting approval; it goes on to print",
        params: IdParams,
        body: ActorBody,
        response: { 200: PieceSafetyView, 409: ErrorBody, ...errors },
      },
    },
    async (request) => {
      const approved = await approvePieces(
        db,
        { pieceIds: [request.params.id] },
        actorOf(request.body),
        clock.now(),
      );
      const piece = await getPieceSafetyView(db, request.params.id);
      if (approved.length === 0) throw notAwaitingApproval(piece.status);
      return piece;
    },
  );
}

function notAwaitingApproval(status: string) {
  return new AppError(409, "not_awaiting_approval", `the piece is ${status}, not awaiting approval`);
}
