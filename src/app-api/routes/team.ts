import { Type, type TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { lockUntilCommit, type Queryable, queryOne, queryRows, sql } from "../../db/database.ts";
import { AppError, notFound } from "../../errors.ts";
import { enforceRateLimit } from "../../limits/enforce-rate-limit.ts";
import {
  cancelInvitation,
  cancelInvitationsSentBy,
  inviteMember,
  listPendingInvitations,
  type MemberRole,
  normalizeEmail,
  ownersLockOf,
} from "../../orgs/invitations.ts";
import type { AppApiContext } from "../context.ts";
import { EmailSchema, MemberRoleSchema } from "../schemas.ts";
import { sessionOf } from "../session-guard.ts";

const TeamMember = Type.Object(
  {
    id: Type.String(),
    user_id: Type.String(),
    name: Type.String(),
    email: Type.String(),
    role: MemberRoleSchema,
    joined_at: Type.String({ format: "date-time" }),
  },
  { additionalProperties: false },
);
const PendingInvitation = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    role: MemberRoleSchema,
    expires_at: Type.String({ format: "date-time" }),
    invited_by: Type.Union([Type.String(), Type.Null()], {
      description:
        "The name of the member who sent it (their email when they set no name), or null when the service's operator did.",
    }),
  },
  { additionalProperties: false },
);
/**
 * Each invitation is a mail the service sends to an address the owner typed: an organization sends
 * at most INVITATIONS_PER_ORG an hour, and at most INVITATIONS_PER_EMAIL to one address (a
 * mistyped address, a lost mail), so no owner can flood a mailbox or the service's mail reputation.
 * The operator's invitations (the first owner of each organization) are not counted.
 */
export const INVITATIONS_PER_ORG = { limit: 20, windowSeconds: 3600 };
export const INVITATIONS_PER_EMAIL = { limit: 3, windowSeconds: 3600 };

const MemberParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

interface MemberRow {
  id: string;
  user_id: string;
  name: string;
  email: string;
  role: MemberRole;
  joined_at: Date;
}

async function listMembers(db: Queryable, orgId: string) {
  const rows = await queryRows<MemberRow>(
    db,
    sql`SELECT m.id, m.user_id, u.name, u.email, m.role, m.created_at AS joined_at
        FROM org_members m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = ${orgId}::uuid ORDER BY m.created_at, m.id`,
  );
  return rows.map((row) => ({ ...row, joined_at: new Date(row.joined_at).toISOString() }));
}

async function findMember(db: Queryable, orgId: string, memberId: string) {
  const member = await queryOne<{ id: string; user_id: string; role: MemberRole }>(
    db,
    sql`SELECT id, user_id, role FROM org_members WHERE org_id = ${orgId}::uuid AND id = ${memberId}`,
  );
  if (!member) throw notFound("member not found");
  return member;
}

/** An organization always keeps an owner: the last one can be neither demoted nor removed. */
async function assertAnotherOwner(db: Queryable, orgId: string, memberId: string) {
  const other = await queryOne<{ id: string }>(
    db,
    sql`SELECT id FROM org_members WHERE org_id = ${orgId}::uuid AND role = 'owner' AND id <> ${memberId} LIMIT 1`,
  );
  if (!other)
    throw new AppError(
      409,
      "last_owner",
      "The organization needs at least one owner; make someone else an owner first.",
    );
}

export function registerTeamRoutes(app: FastifyInstance, ctx: AppApiContext): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db, clock } = ctx;
  // Two owners demoting or removing each other at once must not both pass "another owner exists".
  const withOwnersLocked = <T>(orgId: string, change: (tx: Queryable) => Promise<T>) =>
    db.transaction(async (tx) => {
      await lockUntilCommit(tx, ownersLockOf(orgId));
      return change(tx);
    });

  r.get(
    "/team",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "getTeam",
        summary: "Members and pending invitations (owners only)",
        tags: ["Team"],
        response: {
          200: Type.Object(
            { members: Type.Array(TeamMember), invitations: Type.Array(PendingInvitation) },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      return {
        members: await listMembers(db, orgId),
        invitations: await listPendingInvitations(db, orgId, clock.now()),
      };
    },
  );

  r.post(
    "/team/invitations",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "inviteTeamMember",
        summary:
          "Invites someone by email (owners only); the link that accepts it goes to that email only, never to the inviting owner. At most 20 invitations an hour per organization and 3 to one email (429 rate_limited)",
        tags: ["Team"],
        body: Type.Object({ email: EmailSchema, role: MemberRoleSchema }, { additionalProperties: false }),
        response: {
          201: Type.Object(
            {
              invitation_id: Type.String({ description: "Cancels the invitation; it accepts nothing." }),
              expires_at: Type.String({ format: "date-time" }),
            },
            { additionalProperties: false },
          ),
        },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const email = normalizeEmail(request.body.email);
      // The email's count first: a retry refused for its address does not spend the organization's.
      for (const [rule, id] of [
        [{ bucket: "app-invitations-email", ...INVITATIONS_PER_EMAIL }, `${session.orgId}:${email}`],
        [{ bucket: "app-invitations-org", ...INVITATIONS_PER_ORG }, session.orgId],
      ] as const) {
        await enforceRateLimit(ctx.limiter, rule, id, "too many invitations; wait and try again");
      }
      const invitation = await inviteMember(
        { db, clock, mailer: ctx.mailer, publicBaseUrl: ctx.config.publicBaseUrl },
        {
          orgId: session.orgId,
          email: request.body.email,
          role: request.body.role,
          inviterId: session.userId,
        },
      );
      return reply
        .code(201)
        .send({ invitation_id: invitation.invitation_id, expires_at: invitation.expires_at });
    },
  );

  r.delete(
    "/team/invitations/:id",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "cancelTeamInvitation",
        summary: "Cancels a pending invitation",
        tags: ["Team"],
        params: MemberParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { orgId } = sessionOf(request);
      await cancelInvitation(db, orgId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  r.patch(
    "/team/members/:id",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "updateTeamMember",
        summary: "Changes a member's role (owners only)",
        tags: ["Team"],
        params: MemberParams,
        body: Type.Object({ role: MemberRoleSchema }, { additionalProperties: false }),
        response: { 200: TeamMember },
      },
    },
    async (request) => {
      const { orgId } = sessionOf(request);
      const member = await withOwnersLocked(orgId, async (tx) => {
        const found = await findMember(tx, orgId, request.params.id);
        if (found.role === "owner" && request.body.role !== "owner")
          await assertAnotherOwner(tx, orgId, found.id);
        await tx.execute(
          sql`UPDATE org_members SET role = ${request.body.role} WHERE org_id = ${orgId}::uuid AND id = ${found.id}`,
        );
        if (request.body.role !== "owner")
          await cancelInvitationsSentBy(tx, orgId, found.user_id, { ownerInvitationsOnly: true });
        return found;
      });
      return (await listMembers(db, orgId)).find((m) => m.id === member.id)!;
    },
  );

  r.delete(
    "/team/members/:id",
    {
      config: { appAccess: "owner" },
      schema: {
        operationId: "removeTeamMember",
        summary: "Removes a member from the organization and ends their sessions in it (owners only)",
        tags: ["Team"],
        params: MemberParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      const { orgId } = sessionOf(request);
      const member = await withOwnersLocked(orgId, async (tx) => {
        const found = await findMember(tx, orgId, request.params.id);
        if (found.role === "owner") await assertAnotherOwner(tx, orgId, found.id);
        await tx.execute(sql`DELETE FROM org_members WHERE org_id = ${orgId}::uuid AND id = ${found.id}`);
        await cancelInvitationsSentBy(tx, orgId, found.user_id, { ownerInvitationsOnly: false });
        return found;
      });
      // Sessions that pointed at this org fall back to the user's other memberships (or none: signed out).
      await db.execute(
        sql`UPDATE user_sessions SET active_org_id = NULL WHERE user_id = ${member.user_id} AND active_org_id = ${orgId}::uuid`,
      );
      request.log.info({ orgId, memberId: member.id }, "member removed");
      return reply.code(204).send(null);
    },
  );
}
