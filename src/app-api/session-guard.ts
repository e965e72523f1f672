import type { FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "../clock.ts";
import { type Queryable, queryOne, sql } from "../db/database.ts";
import type { Auth } from "./auth.ts";
import { CLIENT_IP_HEADER, SESSION_ABSOLUTE_SECONDS } from "./auth-settings.ts";
import { forbiddenForMembers, signInRequired } from "./errors.ts";

export type MemberRole = "owner" | "member";

/** Who is calling and for which organization: what every app route sees, as a key is on the developer API. */
export interface AppSession {
  sessionId: string;
  userId: string;
  userName: string;
  email: string;
  orgId: string;
  orgName: string;
  role: MemberRole;
}

declare module "fastify" {
  interface FastifyRequest {
    appSession: AppSession | null;
  }
}

/**
 * The request's headers as the Fetch API's, for Better Auth, with the client's IP in
 * CLIENT_IP_HEADER from request.ip (which honours TRUST_PROXY). A client's own value is dropped on
 * every call into Better Auth, not only through the auth proxy: it records the address of each
 * session it creates.
 */
export function fetchHeaders(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name.toLowerCase() === CLIENT_IP_HEADER) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  headers.set(CLIENT_IP_HEADER, request.ip);
  return headers;
}

/** Better Auth's Set-Cookie lines (a refreshed session's new expiry) onto the reply. */
export function forwardCookies(from: Headers, reply: FastifyReply): void {
  for (const cookie of from.getSetCookie()) reply.header("set-cookie", cookie);
}

export interface SessionGuardDeps {
  auth: Auth;
  db: Queryable;
  clock: Clock;
}

/** Who the session cookie signs in, whatever their memberships; null without a live session. */
export interface SignedInUser {
  sessionId: string;
  userId: string;
  userName: string;
  email: string;
  activeOrgId: string | null;
}

/**
 * Better Auth checks the signed cookie and the idle expiry (and refreshes it, the new cookie
 * going onto the reply); this adds the absolute expiry Better Auth lacks.
 */
export async function resolveSignedInUser(
  deps: SessionGuardDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<SignedInUser | null> {
  const { headers, response } = await deps.auth.api.getSession({
    headers: fetchHeaders(request),
    returnHeaders: true,
  });
  forwardCookies(headers, reply);
  if (!response) return null;
  const { session, user } = response;
  const signedInAt = new Date(session.createdAt).getTime();
  if (signedInAt + SESSION_ABSOLUTE_SECONDS * 1000 <= deps.clock.now().getTime()) {
    await deps.db.execute(sql`DELETE FROM user_sessions WHERE id = ${session.id}`);
    return null;
  }
  return {
    sessionId: session.id,
    userId: user.id,
    userName: user.name,
    email: user.email,
    activeOrgId: (session as { activeOrganizationId?: string | null }).activeOrganizationId ?? null,
  };
}

/**
 * Resolves the session cookie into user, organization and role (resolveSignedInUser). The
 * organization is the session's active one when the user still belongs to it, else the user's
 * oldest membership; a user left with none is signed out.
 */
export function createSessionGuard(deps: SessionGuardDeps) {
  return async function requireSession(request: FastifyRequest, reply: FastifyReply): Promise<AppSession> {
    const user = await resolveSignedInUser(deps, request, reply);
    if (!user) throw signInRequired();
    const membership = await queryOne<{ org_id: string; org_name: string; role: MemberRole }>(
      deps.db,
      sql`SELECT m.org_id, o.name AS org_name, m.role
          FROM org_members m JOIN organizations o ON o.id = m.org_id
          WHERE m.user_id = ${user.userId}
          ORDER BY COALESCE(m.org_id = ${user.activeOrgId}::uuid, false) DESC, m.created_at, m.org_id
          LIMIT 1`,
    );
    if (!membership) throw signInRequired();
    const appSession: AppSession = {
      sessionId: user.sessionId,
      userId: user.userId,
      userName: user.userName,
      email: user.email,
      orgId: membership.org_id,
      orgName: membership.org_name,
      role: membership.role,
    };
    request.appSession = appSession;
    return appSession;
  };
}

export type SessionGuard = ReturnType<typeof createSessionGuard>;

/** The session the guard put on the request (every app route but the public ones runs the guard). */
export function sessionOf(request: FastifyRequest): AppSession {
  if (!request.appSession) throw signInRequired();
  return request.appSession;
}

export function requireOwner(request: FastifyRequest): AppSession {
  const session = sessionOf(request);
  if (session.role !== "owner") throw forbiddenForMembers();
  return session;
}
