import type { AuthContext } from "../domain/auth-context.ts";
import type { ErrorStyle } from "./error-style.ts";

export type Scope = "events:write" | "import:write" | "webhooks:inbound";
export const SCOPES: readonly Scope[] = ["events:write", "import:write", "webhooks:inbound"];

export interface OrgRateLimit {
  /** Bucket name; endpoints with their own bucket use their own name. */
  bucket: string;
  limit: number;
  windowSeconds: number;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** Public endpoints name the scope they need; the auth hook runs only for them. */
    scope?: Scope;
    errorStyle?: ErrorStyle;
    /** Codes this endpoint answers with `error` alone: the spec gives those bodies whole. */
    bareErrorCodes?: readonly string[];
    orgRateLimit?: OrgRateLimit;
    /** Counted by the pre-auth per-IP limit (the public API, the MCP route, landing pages). */
    ipLimited?: boolean;
    /** The route's body schema is all optional fields: no body at all is `{}`, not a 400. */
    bodyOptional?: boolean;
    /** An operator `/orgs/:org_id/…` route whose handler checks the org exists itself (after checks of its own). */
    orgCheckedByHandler?: boolean;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}
