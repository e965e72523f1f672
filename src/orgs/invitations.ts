import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Clock } from "../clock.ts";
import { type Queryable, queryOne, queryRows, sql } from "../db/database.ts";
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
}

export async function listPendingInvitations(
  db: Queryable,
  orgId: string,
  now: Date,
): Promise<PendingInvitationView[]> {
  const rows = await queryRows<{ id: string; email: string; role: MemberRole; expires_at: Date }>(
    db,
    sql`SELECT id, email, role, expires_at FROM org_invitations
        WHERE org_id = ${orgId}::uuid AND status = 'pending' AND expires_at > ${now.toISOString()}::timestamptz
        ORDER BY created_at`,
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
