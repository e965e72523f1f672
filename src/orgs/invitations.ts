import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Clock } from "../clock.ts";
import { lockUntilCommit, type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
import { AppError, notFound } from "../errors.ts";
import type { Mailer } from "../mail/mailer.ts";
import { invitationMessage } from "../mail/messages.ts";
import { loadDisplayName } from "./display-name.ts";
import { assertOrganizationExists } from "./organizations.ts";

export type MemberRole = "owner" | "member";
export const INVITATION_DAYS = 7;

export interface InvitationDeps {
  db: Queryable;
  clock: Clock;
  mailer: Mailer;
  publicBaseUrl: string;
}

export interface IssuedInvitation {
  invitation_id: string;
  /** The link that accepts the invitation (its secret token inside): for the invitee, or the trusted operator. */
  invite_url: string;
  expires_at: string;
}

export interface PendingInvitation {
  id: string;
  org_id: string;
  email: string;
  role: MemberRole;
  organization_name: string;
  /** The business name set in Settings (the one its cards print), or null when none is set. */
  business_name: string | null;
  expires_at: Date;
}

export const inviteUrlOf = (publicBaseUrl: string, token: string) => `${publicBaseUrl}/app/invite/${token}`;

/** 32 random bytes (256 bits), base64url: the link's secret, distinct from the invitation's id. */
const newInvitationToken = () => randomBytes(32).toString("base64url");

/** What the database keeps of a token: a leaked table accepts no invitation. */
export const invitationTokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

/** Email addresses are compared as Better Auth stores them: lower case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * Invites `email` into an organization: a pending invitation and an email with its link. The
 * link's token is a secret of its own, stored only as a hash; the id (a random UUID, Better Auth's
 * key for the row, shown to the org's owners) accepts nothing. A pending invitation for the same
 * address and org is replaced, so the newest link is the one that works. The link is returned for
 * the operator API only: the app API's inviting owner gets no link (see docs/security.md).
 */
export async function inviteMember(
  deps: InvitationDeps,
  input: { orgId: string; email: string; role: MemberRole; inviterId: string | null },
): Promise<IssuedInvitation> {
  const email = normalizeEmail(input.email);
  await assertOrganizationExists(deps.db, input.orgId);
  const member = await queryOne<{ id: string }>(
    deps.db,
    sql`SELECT m.id FROM org_members m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = ${input.orgId}::uuid AND u.email = ${email}`,
  );
  if (member) throw new AppError(409, "already_member", `${email} is already a member of this organization`);
  const id = randomUUID();
  const token = newInvitationToken();
  const expiresAt = new Date(deps.clock.now().getTime() + INVITATION_DAYS * 86_400_000);
  await deps.db.transaction(async (tx) => {
    if (input.inviterId) await assertStillOwner(tx, input.orgId, input.inviterId);
    await tx.execute(
      sql`UPDATE org_invitations SET status = 'canceled'
          WHERE org_id = ${input.orgId}::uuid AND email = ${email} AND status = 'pending'`,
    );
    await tx.execute(
      sql`INSERT INTO org_invitations (org_id, id, token_hash, email, role, status, expires_at, inviter_id, created_at)
          VALUES (${input.orgId}::uuid, ${id}, ${invitationTokenHash(token)}, ${email}, ${input.role}, 'pending',
                  ${expiresAt.toISOString()}::timestamptz, ${input.inviterId}, ${deps.clock.now().toISOString()}::timestamptz)`,
    );
  });
  // The name the invitee knows the business by (display-name.ts).
  const organizationName = (await loadDisplayName(deps.db, input.orgId))!;
  const inviteUrl = inviteUrlOf(deps.publicBaseUrl, token);
  await deps.mailer.send(
    invitationMessage({
      to: email,
      organizationName,
      role: input.role,
      inviteUrl,
      expiresAt,
    }),
  );
  return { invitation_id: id, invite_url: inviteUrl, expires_at: expiresAt.toISOString() };
}

/** The lock a change of the org's owners holds (app-api/routes/team.ts), and an owner's invitation too. */
export const ownersLockOf = (orgId: string) => `org-owners:${orgId}`;

/**
 * Under the owners' lock, the inviting user is still an owner: the session's role was read when the
 * request began, and an owner removed (or made a member) meanwhile must not leave an invitation behind
 * that the removal's cancellation did not see.
 */
async function assertStillOwner(tx: Queryable, orgId: string, userId: string): Promise<void> {
  await lockUntilCommit(tx, ownersLockOf(orgId));
  const owner = await queryOne<{ id: string }>(
    tx,
    sql`SELECT id FROM org_members WHERE org_id = ${orgId}::uuid AND user_id = ${userId} AND role = 'owner'`,
  );
  if (!owner) throw new AppError(403, "forbidden", "Only an owner of this organization can do that.");
}

/**
 * Cancels the pending invitations a member sent (only those as owner with `ownerInvitationsOnly`),
 * when an owner removes them or makes them a member: otherwise an owner on the way out could invite
 * an address of their own as owner beforehand and come back by it. Returns how many.
 */
export async function cancelInvitationsSentBy(
  tx: Queryable,
  orgId: string,
  inviterId: string,
  options: { ownerInvitationsOnly: boolean },
): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`UPDATE org_invitations SET status = 'canceled'
        WHERE org_id = ${orgId}::uuid AND inviter_id = ${inviterId} AND status = 'pending'
          ${options.ownerInvitationsOnly ? sql`AND role = 'owner'` : sql``}
        RETURNING id`,
  );
  return rows.length;
}

/**
 * The pending, unexpired invitation a link's token opens, or 404 (an unknown, used, canceled or
 * expired link alike). Only the token's hash is compared, in SQL, by equality on a unique index.
 */
export async function findPendingInvitation(
  db: Queryable,
  token: string,
  now: Date,
): Promise<PendingInvitation> {
  const row = await queryOne<PendingInvitation>(
    db,
    sql`SELECT i.id, i.org_id, i.email, i.role, o.name AS organization_name,
               NULLIF(btrim(p.business_name), '') AS business_name, i.expires_at
        FROM org_invitations i JOIN organizations o ON o.id = i.org_id
        LEFT JOIN organization_profiles p ON p.org_id = i.org_id
        WHERE i.token_hash = ${invitationTokenHash(token)} AND i.status = 'pending' AND i.expires_at > ${now.toISOString()}::timestamptz`,
  );
  if (!row) throw notFound("This invitation link is not valid any more; ask for a new one.");
  return { ...row, expires_at: new Date(row.expires_at) };
}

export interface PendingInvitationView {
  id: string;
  email: string;
  role: MemberRole;
  expires_at: string;
  /** Who sent it (name, else email), so an owner can tell an invitation nobody on the team meant. */
  invited_by: string | null;
}

export async function listPendingInvitations(
  db: Queryable,
  orgId: string,
  now: Date,
): Promise<PendingInvitationView[]> {
  const rows = await queryRows<Omit<PendingInvitationView, "expires_at"> & { expires_at: Date }>(
    db,
    sql`SELECT i.id, i.email, i.role, i.expires_at, COALESCE(NULLIF(btrim(u.name), ''), u.email) AS invited_by
        FROM org_invitations i LEFT JOIN users u ON u.id = i.inviter_id
        WHERE i.org_id = ${orgId}::uuid AND i.status = 'pending' AND i.expires_at > ${now.toISOString()}::timestamptz
        ORDER BY i.created_at`,
  );
  return rows.map((row) => ({ ...row, expires_at: new Date(row.expires_at).toISOString() }));
}

/** Cancels the org's pending invitation, or 404 (unknown, another org's, or no longer pending). */
export async function cancelInvitation(db: Queryable, orgId: string, invitationId: string): Promise<void> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE org_invitations SET status = 'canceled'
        WHERE org_id = ${orgId}::uuid AND id = ${invitationId} AND status = 'pending' RETURNING id`,
  );
  if (rows.length === 0) throw notFound("invitation not found");
}
