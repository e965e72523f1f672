import { Type } from "@fastify/type-provider-typebox";
import { Lead } from "./lead-view.ts";

// Query and response schemas of GET /api/v1/integrations/leads: the route, the MCP tool and the
// OpenAPI document use these.

export const PollLeadsQuery = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        maxLength: 64,
        description: "ISO-8601 timestamp; only leads created strictly after it.",
      }),
    ),
    before: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          "ISO-8601 timestamp; only leads created at or before it (an extension of the spec, for paging back past 50: repeat with before = the oldest created_at received while 50 come back, and de-duplicate by id).",
      }),
    ),
  },
  { title: "PollLeadsQuery" },
);

export const PollLeadsResponse = Type.Object({ leads: Type.Array(Lead) }, { title: "PollLeadsResponse" });
