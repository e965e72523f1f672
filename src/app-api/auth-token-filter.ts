import type { FastifyInstance } from "fastify";

/**
 * Better Auth answers sign-in, get-session and list-sessions with each session's raw token in the
 * JSON body (`token`, `session.token`, `[].token`). The session lives in its HttpOnly cookie, which
 * page scripts cannot read; a token in a body can be read by any script on the page and, from the
 * list, be used to take over another of the user's sessions (issue 37). The web app never reads
 * them, so every `token` field is removed from the JSON bodies of the auth routes before they leave.
 */
export function registerAuthTokenFilter(app: FastifyInstance, authRoute: string): void {
  app.addHook("onSend", async (request, reply, payload) => {
    if (request.routeOptions.url !== authRoute) return payload;
    if (!/^application\/json/i.test(String(reply.getHeader("content-type") ?? ""))) return payload;
    const text = Buffer.isBuffer(payload)
      ? payload.toString("utf8")
      : typeof payload === "string"
        ? payload
        : undefined;
    if (text === undefined || !text.includes('"token"')) return payload;
    try {
      return JSON.stringify(withoutTokens(JSON.parse(text)));
    } catch {
      return payload;
    }
  });
}

function withoutTokens(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTokens);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "token")
      .map(([key, inner]) => [key, withoutTokens(inner)]),
  );
}
