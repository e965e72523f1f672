import { Type } from "@fastify/type-provider-typebox";

/**
 * An `org_id` a body may carry anywhere the spec's callers put one: accepted with any value and
 * ignored, since the organization is always the key's (spec: Authentication).
 */
export const IgnoredOrgId = Type.Optional(
  Type.Unknown({ description: "Ignored: the organization is always derived from the key." }),
);
